/** Typed errors and reports of the stores. Each message names the file and says what to do. */
import { StatewrightError } from '../errors.js';

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
export class StoreCorruptionError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreCorruptionError';
  constructor(
    readonly path: string,
    readonly reason: string,
    advice = 'Restore the file from a backup, or move it aside to drop what it held.',
  ) {
    super(`The store file ${path} is corrupt: ${reason}. ${advice}`);
  }
}

/** The store could not be opened or created where it was asked to be: no such server, a path that cannot be a folder, no permission. */
export class StoreOpenError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreOpenError';
  constructor(
    readonly store: string,
    readonly location: string,
    readonly reason: string,
    advice: string,
  ) {
    super(`Cannot open the ${store} store at ${location}: ${reason}. ${advice}`);
  }
}

/** Another process (or another store object in this one) has the store open for writing. */
export class StoreLockedError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreLockedError';
  constructor(
    readonly path: string,
    readonly holder: string,
  ) {
    super(
      `The store is in use: ${path} is held by ${holder}. Stop that process first; if none is running, delete ${path}.`,
    );
  }
}

export class StoreClosedError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreClosedError';
  constructor(
    readonly store: string,
    readonly location: string,
  ) {
    super(`The ${store} store at ${location} is closed: open a new one to read or write it.`);
  }
}

/** The store was written by a newer statewright whose format this one does not know. */
export class StoreFormatError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreFormatError';
  constructor(
    readonly path: string,
    readonly found: unknown,
    readonly supported: number,
  ) {
    super(
      `The store at ${path} has format version ${JSON.stringify(found)}; this statewright reads version ${supported}. Upgrade statewright to open it.`,
    );
  }
}

export class StoreReadOnlyError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreReadOnlyError';
  constructor(readonly location: string) {
    super(
      `The store at ${location} was opened read-only: open it without \`readOnly\` (with no other process using it) to commit.`,
    );
  }
}

/**
 * A new run whose id this store cannot keep apart from a stored run's: a json-file store names both
 * with one folder (one id is not well-formed Unicode, stored before the runtime checked ids). The
 * new run is refused and the stored one kept as it is.
 */
export class RunIdClashError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'RunIdClashError';
  constructor(
    readonly runId: string,
    readonly holder: string,
    readonly path: string,
  ) {
    super(
      `Run ${JSON.stringify(runId)} cannot be stored: ${path} holds run ${JSON.stringify(holder)}, whose id this store cannot tell apart from it. ` +
        'Nothing was written: give the new run another id.',
    );
  }
}

/**
 * The store's server could not be reached, or the connection was lost before the commit was sent
 * (so the server rolled the transaction back): nothing was applied, and retrying is safe.
 */
export class StoreUnavailableError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreUnavailableError';
  /** Always true: nothing was applied, so the same commit or read may simply be tried again. */
  readonly retryable = true;
  constructor(
    readonly store: string,
    readonly location: string,
    readonly reason: string,
  ) {
    super(
      `The ${store} store at ${location} is unavailable (${reason}). Nothing was applied: retrying is safe once the server answers again.`,
    );
  }
}

/**
 * The connection was lost after the commit was sent and the store could not find out, within its
 * time limit, whether it committed: the events may or may not have been applied.
 */
export class CommitOutcomeUnknownError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'CommitOutcomeUnknownError';
  constructor(
    readonly store: string,
    readonly location: string,
    /** The id to ask about it later: the server's transaction id, or the commit's own id that its rows carry (Postgres). */
    readonly transaction: string,
    /** Each run of the commit and the seq it would be at had it committed. */
    readonly runs: ReadonlyArray<{ runId: string; seq: number }>,
    readonly reason: string,
    /** The query that tells whether it committed; by default `SELECT txid_status(<transaction>)`. */
    readonly check = `SELECT txid_status(${transaction})`,
  ) {
    super(
      `The outcome of a commit to the ${store} store at ${location} is unknown: the connection was lost after the commit was sent (${reason}). ` +
        `Do not retry blindly. Find out with \`${check}\` on the server, or load the runs ` +
        `(${runs.map((r) => `'${r.runId}' at seq ${r.seq}`).join(', ')}): a run at that seq holds the commit. An event sent with an idempotency key may be sent again safely.`,
    );
  }
}

/**
 * The disk (or the quota) is full: the commit was refused and nothing of it was kept. The run is as
 * it was before; once space is freed, the same commit can be retried.
 */
export class StoreFullError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'StoreFullError';
  /** `refused`: what could not be done; by default a commit, of which nothing was kept. */
  constructor(
    readonly path: string,
    options?: { cause?: unknown; refused?: string },
  ) {
    super(
      `The disk holding ${path} is full: ${options?.refused ?? 'the commit was refused and nothing of it was kept'}. Free space on that disk, then retry.`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}

/** Whether an error from the file system means the disk (or the user's quota) is full. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
