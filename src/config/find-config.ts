/** Which config file a command reads: `--config`, else `STATEWRIGHT_CONFIG`, else one in the working folder. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigNotFoundError } from './config-errors.js';

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
}

/** The absolute path of the config to load, or undefined when there is none (the built-in lifecycles alone). */
export function findConfig({ flag, env = process.env, cwd = process.cwd() }: ConfigLocation = {}): string | undefined {
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
  return CONFIG_FILE_NAMES.map((name) => join(cwd, name)).find((file) => existsSync(file));
}
