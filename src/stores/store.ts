
/** The process that committed to a run, so a restart can tell a dead owner from a live one. */
export interface OwnerInfo {
  readonly id: string;
  readonly pid: number;
  /** The process start time as the kernel reports it: tells a reused pid from the original. */
  readonly pidStart: string;
  readonly host: string;
}

/** A run as stored: the latest committed snapshot and what is needed to list, restore and replay it. */
export interface StoredRun {
  readonly runId: string;
  readonly machine: string;
  /** The lifecycle version the snapshot was written by; restoring under another version needs a migration. */
  readonly version: number;
  /** XState's snapshot status: active, done, error or stopped. */
  readonly status: string;
  /** The state the run rests in ("running", "work.check"). */
  readonly state: string;
  /** The persisted XState snapshot, as `actor.getPersistedSnapshot()` gives it. */
  readonly snapshot: unknown;
  readonly input: unknown;
  /** How many events have been applied; 0 right after start. Every commit raises it by one. */
  readonly seq: number;
  readonly owner: OwnerInfo | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * A plain copy of `run`, read field by field. A row may compute a field when it is read (the
 * runtime's rows compute `snapshot` on first read, from their prototype), so stores copy rows with
 * this, never by spreading or cloning them.
 */
export function plainRow(run: StoredRun): StoredRun {
  return {
    runId: run.runId,
    machine: run.machine,
    version: run.version,
    status: run.status,
    state: run.state,
    snapshot: run.snapshot,
    input: run.input,
    seq: run.seq,
    owner: run.owner,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
}

/** One entry of the audit trail: an applied event, when, by whom, why, and the states around it. */
export interface EventRecord {
  readonly runId: string;
  readonly seq: number;
  readonly event: { type: string; [key: string]: unknown };
  readonly at: number;
  readonly actor?: string;
  readonly reason?: string;
  readonly idempotencyKey?: string;
  readonly before: string;
  readonly after: string;
}

/**
 * One atomic step of one run: the run's new row and the event that produced it (none for the
 * step that creates the run). `expectedSeq` is the seq the writer last saw: if the stored run has
 * moved on since, another writer got there first and the commit is refused.
 */
export interface Commit {
  readonly run: StoredRun;
  readonly event?: EventRecord;
  /** Kept with an idempotent event: what a repeat of its key returns. */
  readonly result?: unknown;
  /** `undefined` when the commit creates the run (which must not exist yet). */
  readonly expectedSeq: number | undefined;
  /**
   * The run's index keys after this step, as its lifecycle declares them (`Lifecycle.indexes`):
   * key name -> sort value, ascending (the runtime has already negated the keys listed newest
   * first), or null when the run is not listed under that key. Absent when the lifecycle
   * declares none. A store with indexes keeps them in the same transaction as the run's row.
   */
  readonly keys?: Readonly<Record<string, number | null>>;
}

export interface RunFilter {
  machine?: string;
  /** XState snapshot status: active, done, error, stopped. */
  status?: string;
  /** The state a run rests in. */
  state?: string;
}

/**
 * Persistence behind one interface. Every implementation passes the same conformance suite
 * (test/stores/) and the same crash tests.
 */
export interface Store {
  readonly kind: string;
  /**
   * Makes every commit durable in one atomic step: when the promise resolves all of them survive
   * any crash; when it rejects none was applied, except with `CommitOutcomeUnknownError` (a store
   * on a server lost the reply to its COMMIT and could not find out in time): then either all or
   * none was, and the caller reads the runs again to know. Refuses the whole batch with `CommitConflictError`
   * when any commit's `expectedSeq` is stale. The commits are handed over: a store may keep their
   * objects as they are (the memory store does), so the caller must not change them afterwards.
   * What a store returns from any read is the caller's own to change.
   */
  commit(commits: readonly Commit[]): Promise<void>;
  load(runId: string): Promise<StoredRun | undefined>;
  list(filter?: RunFilter): Promise<StoredRun[]>;
  /** The audit trail of a run, in seq order. */
  history(runId: string): Promise<EventRecord[]>;
  /** The result stored with the event of `runId` that carried `key`, if there was one. */
  findIdempotent(runId: string, key: string): Promise<{ seq: number; result: unknown } | undefined>;
  /**
   * Optional: the runs of `machine` listed under index key `key` (see `Commit.keys`), by sort
   * value then run id, read from an index rather than by loading every run. Stores without it
   * are queried by scanning (`Runtime.listByIndex` does that for them).
   */
  listByIndex?(machine: string, key: string, options?: { limit?: number }): Promise<StoredRun[]>;
  /**
   * Optional, with `listByIndex`: makes the stored keys of `machine`'s runs those of the declaration
   * named `fingerprint`. If the store last indexed the machine under another fingerprint (or never:
   * runs stored before keys existed), it recomputes every run's keys with `keysOf` in one
   * transaction; otherwise it does nothing. Resolves with the number of runs indexed.
   */
  syncIndex?(machine: string, fingerprint: string, keysOf: (run: StoredRun) => Readonly<Record<string, number | null>>): Promise<number>;
  /**
   * Optional: checks the store's files as a whole, beyond what each read checks (on SQLite,
   * SQLite's integrity_check, which also finds an index that no longer matches its table).
   * Resolves with the problems found, none when it is sound; writes nothing. `statewright verify` runs it.
   */
  checkIntegrity?(): Promise<string[]>;
  close(): Promise<void>;
}

/** Another writer committed to these runs first; nothing in the batch was applied. */
export class CommitConflictError extends Error {
  override readonly name = 'CommitConflictError';
  constructor(readonly conflicts: ReadonlyArray<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }>) {
    super(
      `Commit refused: ${conflicts
        .map((c) =>
          c.expectedSeq === undefined
            ? `run '${c.runId}' already exists`
            : c.storedSeq === undefined
              ? `run '${c.runId}' does not exist`
              : `run '${c.runId}' is at seq ${c.storedSeq}, the writer expected ${c.expectedSeq}`,
        )
        .join('; ')}. Another writer changed it; reload the run and try again.`,
    );
  }
}

/** Checks a batch against the stored seqs; the stores call it inside their transaction. */
export function findConflicts(commits: readonly Commit[], storedSeq: (runId: string) => number | undefined): CommitConflictError | undefined {
  const seen = new Map<string, number>();
  const conflicts: Array<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }> = [];
  for (const commit of commits) {
    const current = seen.has(commit.run.runId) ? seen.get(commit.run.runId) : storedSeq(commit.run.runId);
    if (current !== commit.expectedSeq) conflicts.push({ runId: commit.run.runId, expectedSeq: commit.expectedSeq, storedSeq: current });
    seen.set(commit.run.runId, commit.run.seq);
  }
  return conflicts.length ? new CommitConflictError(conflicts) : undefined;
}
