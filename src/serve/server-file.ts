/**
 * The file a running `statewright serve` keeps beside its store (`<store>.serve.json`), so the CLI
 * finds the server that hosts a store and sends it what needs the lifecycles' actors. Written on
 * start, removed on a clean stop; a file whose process is gone (a crash) is ignored.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isProcessAlive, processStartTime, thisHost } from '../os/process-identity.js';

export interface ServerFile {
  /** Where the API answers, e.g. http://127.0.0.1:4680 */
  readonly url: string;
  readonly pid: number;
  readonly pidStart: string;
  readonly host: string;
  /** The last 4 characters of the token when one is required, to tell which one; never the token. */
  readonly tokenHint: string | null;
  readonly startedAt: number;
}

export function writeServerFile(path: string, entry: { url: string; token: string | undefined }): ServerFile {
  const file: ServerFile = {
    url: entry.url,
    pid: process.pid,
    pidStart: processStartTime(process.pid) ?? 'unknown',
    host: thisHost(),
    tokenHint: entry.token ? entry.token.slice(-4) : null,
    startedAt: Date.now(),
  };
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(file, null, 2) + '\n', { mode: 0o600 });
  renameSync(temp, path);
  return file;
}

/** The running server the file names, or undefined when there is none, its process is gone, or the file is not one of ours. */
export function readServerFile(path: string): ServerFile | undefined {
  if (!existsSync(path)) return undefined;
  let file: Partial<ServerFile>;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as Partial<ServerFile>;
  } catch {
    return undefined;
  }
  if (typeof file.url !== 'string' || typeof file.pid !== 'number' || typeof file.host !== 'string') return undefined;
  // On another host the pid says nothing: trust the file, the request will tell.
  if (file.host === thisHost() && !isProcessAlive({ pid: file.pid, ...(typeof file.pidStart === 'string' && { pidStart: file.pidStart }), host: file.host })) return undefined;
  return file as ServerFile;
}

/** Removes the file if it is this process's (another server may have taken the store over since). */
export function removeServerFile(path: string): void {
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as Partial<ServerFile>;
    if (file.pid === process.pid && file.host === thisHost()) rmSync(path, { force: true });
  } catch {
    // Gone or unreadable: nothing of ours to remove.
  }
}
