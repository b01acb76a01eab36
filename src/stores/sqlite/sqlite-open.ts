import { statfsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateFileSync, makePrivateDirSync, tightenPrivate } from '../../os/private-files.js';
import { StoreCorruptionError, StoreFullError, StoreOpenError } from '../store-errors.js';

export interface SqliteOpenOptions {
  readOnly?: boolean;
  synchronous?: 'FULL' | 'NORMAL';
  busyTimeoutMs?: number;
  pageSize?: number;
}

export interface OpenedSqlite {
  db: Database.Database;
  /**
   * The disk was full when the file was opened: SQLite could not make its shared wal-index (the
   * `-shm` file), so this connection keeps it in memory and holds the file's lock alone. It reads;
   * it must not write, so no other process is kept out longer than this one reads.
   */
  openedWhileFull: boolean;
}

/** Below this much free space an I/O error of SQLite's is taken for a full disk. */
const FULL_BELOW_BYTES = 1 << 20;

/**
 * Opens a store's SQLite file in WAL mode. Opening writes nothing to a file that exists (reading a
 * store never needs a write), and a full disk does not keep a store from being read.
 */
export function openSqlite(path: string, options: SqliteOpenOptions): OpenedSqlite {
  const readOnly = options.readOnly ?? false;
  let db = connect(path, readOnly);
  try {
    configure(db, options, readOnly);
    return { db, openedWhileFull: false };
  } catch (error) {
    db.close();
    if (!diskFull(path, error)) throw openError(path, error);
  }
  // In EXCLUSIVE locking mode SQLite keeps the wal-index in this process's memory, which needs no
  // space on disk; it needs a read-write connection for the lock, though nothing is written.
  db = connect(path, false);
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    configure(db, options, true);
    return { db, openedWhileFull: true };
  } catch (error) {
    db.close();
    throw openError(path, error);
  }
}

/**
 * An error while opening: as `storeError`, and SQLite's plain SQLITE_ERROR, which on opening means
 * the file's header or schema is not what was written ("unsupported file format", a table or
 * column that is missing), as damage.
 */
export function openError(path: string, error: unknown): unknown {
  if ((error as { code?: unknown }).code !== 'SQLITE_ERROR') return storeError(path, error);
  return damaged(
    path,
    `its header or tables are not what statewright writes: SQLite says "${(error as Error).message}"`,
  );
}

function connect(path: string, readOnly: boolean): Database.Database {
  try {
    if (path !== ':memory:') makePrivate(path, readOnly);
    return new Database(path, { readonly: readOnly, fileMustExist: readOnly });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOSPC') throw new StoreFullError(path, { cause: error });
    if (readOnly)
      throw new StoreOpenError(
        'sqlite',
        path,
        (error as Error).message,
        'Reading needs an existing store file: check the path (--store sqlite:<file>).',
      );
    throw new StoreOpenError(
      'sqlite',
      path,
      (error as Error).message,
      'Pick a file in a folder this process can create and write (--store sqlite:<file>).',
    );
  }
}

/**
 * The file made 0600 before SQLite opens it (SQLite gives its -wal, -shm and -journal files the
 * mode of the database file, so they are private too), and a store made when files were created
 * readable by others tightened: the file, its companions, and statewright's own folder around it.
 */
function makePrivate(path: string, readOnly: boolean): void {
  const dir = dirname(path);
  if (!readOnly) {
    makePrivateDirSync(dir);
    createPrivateFileSync(path);
  }
  const companions = ['-wal', '-shm', '-journal'].map((suffix) => `${path}${suffix}`);
  tightenPrivate(`the SQLite store ${path}`, [...(basename(dir) === '.statewright' ? [dir] : []), path, ...companions]);
}

/** The pragmas; `readOnly` reads the journal mode where a writer sets it (a file in WAL mode stays so). */
function configure(db: Database.Database, options: SqliteOpenOptions, readOnly: boolean): void {
  if (options.pageSize && !readOnly) db.pragma(`page_size = ${options.pageSize}`);
  db.pragma(readOnly ? 'journal_mode' : 'journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
}

/** SQLite's own "full", or an I/O error (growing the `-shm` file, say) with the disk nearly full. */
export function diskFull(path: string, error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return true;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_IOERR') || path === ':memory:') return false;
  try {
    const { bavail, bsize } = statfsSync(dirname(path));
    return bavail * bsize < FULL_BELOW_BYTES;
  } catch {
    return false;
  }
}

/**
 * SQLite's errors as the store's: damage (SQLite's "not a database", "malformed" and the like, and
 * a datatype that is not what was written) as StoreCorruptionError naming the file, a full disk as
 * StoreFullError. Anything else is returned as it was.
 */
export function storeError(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_MISMATCH') {
    return damaged(path, `SQLite says "${(error as Error).message}" (${code})`);
  }
  if (diskFull(path, error))
    return new StoreFullError(path, {
      cause: error,
      refused: `SQLite refused the write (${code}: ${(error as Error).message}) and nothing of it was kept`,
    });
  return error;
}

/** The file holds something statewright did not write there. */
export function damaged(path: string, reason: string): StoreCorruptionError {
  return new StoreCorruptionError(
    path,
    reason,
    'Restore the file from a backup, or move it aside (with its -wal and -shm files) to start an empty store.',
  );
}
