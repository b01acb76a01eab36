/**
 * Whether some process holds a SQLite file's write lock and keeps it: a host paused (SIGSTOP) in the
 * middle of a write transaction holds it until it runs again, and every other process on the file
 * waits for it. The chaos test pauses hosts at random instants, so it asks this right after a pause.
 */
import Database from 'better-sqlite3';

/**
 * True when the write lock could not be had within `waitMs`: other writers hold it for milliseconds.
 * Kept well under the lease TTL, so that the other hosts' renewals, waiting meanwhile, still land in time.
 */
export function writeLockHeld(path: string, waitMs = 400): boolean {
  const db = new Database(path, { timeout: waitMs });
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw error;
  } finally {
    db.close();
  }
}
