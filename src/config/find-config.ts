/**
 * Which config file a command reads: `--config`, else `STATEWRIGHT_CONFIG`, else one in the working
 * folder. A config is code run with the user's permissions (docs/config.md, "Config files are
 * code"): one named is the user's choice; one found is run only where the user could have put it
 * (the file theirs and not writable by others), and never by a command an agent starts (`discover: false`).
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigNotChosenError, ConfigNotFoundError } from './config-errors.js';

/** The names looked for in the working folder, in this order. */
export const CONFIG_FILE_NAMES = [
  'statewright.config.ts',
  'statewright.config.mts',
  'statewright.config.js',
  'statewright.config.mjs',
] as const;

export interface ConfigLocation {
  /** `--config`, as given. */
  readonly flag?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /**
   * Whether a config found in the working folder may run (default true). False for a command an
   * agent starts in a folder the user did not choose: a config found there is refused, naming it.
   */
  readonly discover?: boolean;
}

/** The absolute path of the config to load, or undefined when there is none (the built-in lifecycles alone). */
export function findConfig({
  flag,
  env = process.env,
  cwd = process.cwd(),
  discover = true,
}: ConfigLocation = {}): string | undefined {
  const named =
    flag !== undefined
      ? { file: flag, from: '--config' }
      : env.STATEWRIGHT_CONFIG
        ? { file: env.STATEWRIGHT_CONFIG, from: 'STATEWRIGHT_CONFIG' }
        : undefined;
  if (named) {
    const file = resolve(cwd, named.file);
    if (!existsSync(file)) throw new ConfigNotFoundError(file, `named by ${named.from}`);
    return file;
  }
  const found = CONFIG_FILE_NAMES.map((name) => join(cwd, name)).find((file) => existsSync(file));
  if (found === undefined) return undefined;
  if (!discover)
    throw new ConfigNotChosenError(
      found,
      'it was found in the working folder of a command an agent starts (statewright mcp runs no config it finds)',
    );
  const untrusted = whyUntrusted(found);
  if (untrusted) throw new ConfigNotChosenError(found, untrusted);
  return found;
}

/** Why a config found in the working folder is not the user's own to run: another user owns it, or anyone may write it. */
function whyUntrusted(file: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: no owner ids to compare
  const { uid: owner, mode } = statSync(file);
  if (owner !== uid) return `it is owned by another user (uid ${owner}), not by you (uid ${uid})`;
  if (mode & 0o002) return 'anyone on this machine may write it (mode o+w)';
  return undefined;
}
