/**
 * The files running `statewright serve` processes keep beside their store, one per host
 * (`<store>.serve/<host id>.json`), so the CLI finds the servers that host a store and sends them
 * what needs the lifecycles' actors, and so several hosts on one store never write over each
 * other's file. Written once a host is up, removed on a clean stop; a file whose process is gone
 * (a crash) is ignored, and replaced by the next host of that id.
 *
 * The file holds the server's token, so the user's own CLI can call it: it is written 0600 in a
 * 0700 folder, and a file another user owns, or that others may write, is not trusted (someone
 * else's file could point the CLI, token and all, at their own server).
 */
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, processStartTime, thisHost } from '../os/process-identity.js';
import { StatewrightError } from '../errors.js';

export interface ServerFile {
  /** The runtime owner id of the host: the holder its leases name (`serve --host-id`). */
  readonly hostId: string;
  /** Where the API answers, e.g. http://127.0.0.1:4680 */
  readonly url: string;
  readonly pid: number;
  readonly pidStart: string;
  /** The machine (hostname). */
  readonly host: string;
  /** The token the server requires (`null`: none, `serve --no-token`). */
  readonly token: string | null;
  readonly startedAt: number;
}

/** A live server of this host id already serves the store. */
export class HostIdInUseError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'HostIdInUseError';
  constructor(readonly file: ServerFile) {
    super(
      `Host id '${file.hostId}' is taken: the statewright serve at ${file.url} (pid ${file.pid}) runs under it on this store. ` +
        'Two hosts of one id would both count as the holder of its runs: give this one another --host-id, or stop that one first.',
    );
  }
}

/** The file of `hostId` in `dir`: the id is URL-encoded, so any id is one safe file name. */
export const serverFilePath = (dir: string, hostId: string) => join(dir, `${encodeURIComponent(hostId)}.json`);

/**
 * Writes this process's file for `hostId`: built aside, then linked into place, which fails if a
 * file is there, so two hosts starting at once under one id cannot both take it. A file of a
 * live server is `HostIdInUseError`; one whose process is gone is replaced.
 */
export function writeServerFile(
  dir: string,
  entry: { hostId: string; url: string; token: string | undefined },
): ServerFile {
  const file: ServerFile = {
    hostId: entry.hostId,
    url: entry.url,
    pid: process.pid,
    pidStart: processStartTime(process.pid) ?? 'unknown',
    host: thisHost(),
    token: entry.token ?? null,
    startedAt: Date.now(),
  };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700); // made by an older version, or with a wider umask
  const path = serverFilePath(dir, entry.hostId);
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  // 'wx': a file (or a link) planted under the temp name is refused, never written through.
  writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    for (;;) {
      try {
        linkSync(temp, path);
        return file;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const existing = readServerFile(path);
      if (existing) throw new HostIdInUseError(existing);
      rmSync(path, { force: true });
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The live server `hostId` names in `dir`, if any. */
export function readServerFileOf(dir: string, hostId: string): ServerFile | undefined {
  return readServerFile(serverFilePath(dir, hostId));
}

/** Every live server in `dir`, the one started last first. */
export function readServerFiles(dir: string): ServerFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => readServerFile(join(dir, name)) ?? [])
    .sort((a, b) => b.startedAt - a.startedAt);
}

/** The running server the file names, or undefined when there is none, its process is gone, or the file is not one of ours. */
function readServerFile(path: string): ServerFile | undefined {
  if (!existsSync(path) || !ownedByThisUser(path)) return undefined;
  let file: Partial<ServerFile>;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as Partial<ServerFile>;
  } catch {
    return undefined;
  }
  if (
    typeof file.url !== 'string' ||
    typeof file.pid !== 'number' ||
    typeof file.host !== 'string' ||
    typeof file.hostId !== 'string'
  )
    return undefined;
  // On another machine the pid says nothing: trust the file, the request will tell.
  if (
    file.host === thisHost() &&
    !isProcessAlive({
      pid: file.pid,
      ...(typeof file.pidStart === 'string' && { pidStart: file.pidStart }),
      host: file.host,
    })
  )
    return undefined;
  return file as ServerFile;
}

/** Whether this process's user owns the file at `path` and nobody else may write it. */
function ownedByThisUser(path: string): boolean {
  const stat = lstatSync(path);
  return stat.isFile() && (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
}

/**
 * The page `statewright open --browser` hands the browser for `hostId`'s view (it holds the token,
 * so it sits beside the server file, 0600 in the 0700 folder, and goes with it).
 */
export const viewPagePath = (dir: string, hostId: string) => join(dir, `${encodeURIComponent(hostId)}.open.html`);

/** Removes `hostId`'s file, and its view page, if it is this process's (another server of that id may have started since). */
export function removeServerFile(dir: string, hostId: string): void {
  const path = serverFilePath(dir, hostId);
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as Partial<ServerFile>;
    if (file.pid === process.pid && file.host === thisHost()) {
      rmSync(path, { force: true });
      rmSync(viewPagePath(dir, hostId), { force: true });
    }
  } catch {
    // Gone or unreadable: nothing of ours to remove.
  }
}
