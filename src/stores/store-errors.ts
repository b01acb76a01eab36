/** Typed errors and reports of the stores. Each message names the file and says what to do. */

/**
 * Something on disk was not what the store wrote, or a crash interrupted a write: what was found,
 * where, and what the store did about it. File-backed stores hand these to `onCorruption`.
 */
export interface CorruptionReport {
  /** The run concerned, when the report is about one run. */
  readonly runId?: string;
  readonly path: string;
  /** What is wrong with the file. */
  readonly reason: string;
  /** What the store did instead (which copy it used, what it set aside). */
  readonly action: string;
}

/** A store's file is damaged beyond what the store can repair from its last good copy. */
export class StoreCorruptionError extends Error {
  override readonly name = 'StoreCorruptionError';
  constructor(readonly path: string, readonly reason: string, advice = 'Restore the file from a backup, or move it aside to drop what it held.') {
    super(`The store file ${path} is corrupt: ${reason}. ${advice}`);
  }
}

/** The store could not be opened or created where it was asked to be: no such server, a path that cannot be a folder, no permission. */
export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';
  constructor(readonly kind: string, readonly location: string, readonly reason: string, advice: string) {
    super(`Cannot open the ${kind} store at ${location}: ${reason}. ${advice}`);
  }
}

/** Another process (or another store object in this one) has the store open for writing. */
export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
  constructor(readonly path: string, readonly holder: string) {
    super(`The store is in use: ${path} is held by ${holder}. Stop that process first; if none is running, delete ${path}.`);
  }
}

export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor(readonly kind: string, readonly location: string) {
    super(`The ${kind} store at ${location} is closed: open a new one to read or write it.`);
  }
}

/** The store was written by a newer statewright whose format this one does not know. */
export class StoreFormatError extends Error {
  override readonly name = 'StoreFormatError';
  constructor(readonly path: string, readonly found: unknown, readonly supported: number) {
    super(`The store at ${path} has format version ${JSON.stringify(found)}; this statewright reads version ${supported}. Upgrade statewright to open it.`);
  }
}

export class StoreReadOnlyError extends Error {
  override readonly name = 'StoreReadOnlyError';
  constructor(readonly location: string) {
    super(`The store at ${location} was opened read-only: open it without \`readOnly\` (with no other process using it) to commit.`);
  }
}

/** The disk (or the file system's quota) under a store is full: nothing of the refused write was applied. */
export class StoreFullError extends Error {
  override readonly name = 'StoreFullError';
  constructor(readonly path: string, readonly reason?: string) {
    super(`The disk under the store ${path} is full${reason ? ` (${reason})` : ''}: nothing was written. Free space on it, then try again.`);
  }
}
