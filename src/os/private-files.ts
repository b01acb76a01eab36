/**
 * Files only their owner may read. The store, its WAL, logs, session transcripts, decisions and
 * loop files hold a run's input, an approval's, an agent's words and the secrets in them, so
 * statewright's folders are 0700 and its files 0600 whatever the umask (a umask only takes bits
 * away, so the mode given at creation is the widest a file gets; chmod sets it exactly).
 */
import { chmodSync, lstatSync, mkdirSync, openSync, closeSync, readdirSync, type Stats } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` and every missing parent 0700. A folder that already existed is left as it is (see tightenPrivate). */
export function makePrivateDirSync(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first !== undefined) for (const made of madeFolders(first, dir)) chmodSync(made, PRIVATE_DIR_MODE);
}

/** makePrivateDirSync, without blocking. */
export async function makePrivateDir(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first !== undefined) for (const made of madeFolders(first, dir)) await chmod(made, PRIVATE_DIR_MODE);
}

/** The folders from `first` (the topmost one mkdir made) down to `dir`. */
function madeFolders(first: string, dir: string): string[] {
  const made: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    made.push(at);
    if (at === first || dirname(at) === at) return made;
  }
}

/** Creates `path` empty and 0600 if it does not exist, so a library that opens it (SQLite) finds it private. */
export function createPrivateFileSync(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** What tightenPrivate changed. */
export interface Tightened {
  readonly path: string;
  readonly was: number;
}

/**
 * Takes the group's and others' bits off each of `paths` that exists (folders 0700, files 0600;
 * with `deep`, everything under a folder too, walked only when that folder itself was wider: a
 * store made private once is not walked again). Symbolic links are not followed. Says so on stderr
 * in one line naming `what`, when anything changed. A file this user cannot change (another
 * user's, or a read-only file system) is left as it is: opening it to read needs no chmod.
 */
export function tightenPrivate(what: string, paths: readonly string[], options: { deep?: boolean } = {}): Tightened[] {
  const changed: Tightened[] = [];
  const visit = (path: string, walk: boolean): void => {
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch {
      return;
    }
    if (stats.isSymbolicLink()) return;
    const wide = (stats.mode & 0o077) !== 0;
    if (wide) {
      try {
        chmodSync(path, stats.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE);
        changed.push({ path, was: stats.mode & 0o777 });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EPERM' && code !== 'EROFS' && code !== 'EACCES') throw error;
        return;
      }
    }
    if (walk && wide && stats.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name), true);
    }
  };
  for (const path of paths) visit(path, options.deep ?? false);
  if (changed.length > 0) {
    const first = changed[0]!;
    process.stderr.write(
      `statewright: ${what} could be read by other users of this machine (${first.path} was ${first.was.toString(8).padStart(4, '0')}); made owner-only: ${changed.length} ${changed.length === 1 ? 'path' : 'paths'} now 0700 (folders) or 0600 (files)\n`,
    );
  }
  return changed;
}
