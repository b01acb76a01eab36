/**
 * The CLI and a running serve never disagree about a run silently. A command that goes through
 * serve first asks it which config it runs (`GET /api/host`'s `config`: its file, the files it
 * imports, their hash, the error of its last reload) and holds that against the config this
 * command reads, hashing the same files as they are now:
 * - the same: nothing to say;
 * - serve tried the very text on disk and could not load it: refused (`ConfigMismatchError`),
 *   since serve would answer under a config the files no longer say;
 * - otherwise (another file, or a change serve has not loaded yet): one line on stderr saying so,
 *   and the answer is serve's.
 * A command that only reads the store under the config it reads (`status`, `explain`) is never
 * refused: it says in one line that serve runs another config, and reads on.
 */
import { realpathSync } from 'node:fs';
import { configHash } from '../config/config-source.js';
import type { ConfigStatus } from '../serve/config-reload.js';
import { ConfigMismatchError } from '../serve/serve-errors.js';
import { callServer, type ServerTarget } from '../client/server-client.js';

/** What `GET /api/host` answers that the CLI reads. */
export interface ServedHost {
  readonly config?: ConfigStatus;
  /** Whether the store has leases (several hosts may share it). */
  readonly leases?: boolean;
  /** How many hosts hold runs of the store now, the serve included. */
  readonly hosts?: number;
}

/**
 * Resolves when the command may go on through `server` (having said what differs on `warn`);
 * rejects when it may not. With `reading`, it never rejects: a serve that does not answer says nothing.
 * Resolves with serve's `GET /api/host` answer when serve runs the very config this command reads
 * (nothing said): a reading command may then ask serve instead of reading the store itself.
 */
export async function agreeOnConfig(
  server: ServerTarget,
  localFile: string | undefined,
  warn: (line: string) => void,
  options: { readonly reading?: boolean } = {},
): Promise<ServedHost | undefined> {
  const host = options.reading
    ? await callServer<ServedHost>(server, 'GET', '/api/host').catch(() => undefined)
    : await callServer<ServedHost>(server, 'GET', '/api/host');
  const served = host?.config;
  // A serve from before configs were reported: nothing to hold against.
  if (!served) return host;
  const runs = served.file ?? 'the built-in lifecycles alone (no config file)';
  const whose = options.reading ? 'this command reads the store under its own' : "the answer is that serve's";
  if (served.file === null || localFile === undefined || !sameFile(served.file, localFile)) {
    if (served.file === null && localFile === undefined) return host;
    warn(
      `statewright: note: the serve at ${server.url} runs ${runs}, and this command reads ${localFile ?? 'no config file'}: ${whose}.`,
    );
    return;
  }
  const here = configHash(served.file, served.inputs);
  if (here === served.hash) return host;
  if (served.error && served.error.hash === here && options.reading) {
    warn(
      `statewright: note: the serve at ${server.url} runs ${served.file} as it was at ${served.loadedAt} (hash ${served.hash}): it could not load the change (${served.error.message.replace(/\.$/, '')}); this command reads the file as it is now, which serve does not run.`,
    );
    return;
  }
  if (served.error && served.error.hash === here)
    throw new ConfigMismatchError(
      server.url,
      served.file,
      { hash: served.hash, loadedAt: served.loadedAt ?? 'start' },
      served.error.message,
    );
  warn(
    `statewright: note: the serve at ${server.url} has not loaded the change to ${served.file} yet (it runs hash ${served.hash}, the files hold ${here}; it loads a change when it is saved): ${options.reading ? 'this command reads the store under the file as it is now' : "the answer is serve's, under the config it runs"}.`,
  );
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
