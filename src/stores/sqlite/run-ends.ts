import type { EventRow, RunRow } from './sqlite-rows.js';

/** Where a run's log ends, and how far its `runs` row lags: what a commit needs to append to it. */
export interface RunEnd {
  seq: number;
  /** Its newest event, or null when it has none. */
  event: number | null;
  /** The seq its `runs` row is as of. */
  checkpointSeq: number;
  status: string;
  version: number;
  /** The owner's JSON as the `runs` row holds it. */
  owner: string | null;
}

/** Where the run of `row` ends, its newest event being `tail`. */
export function endAt(row: RunRow, tail: EventRow | undefined): RunEnd {
  const moved = tail !== undefined && tail.id !== row.last_event;
  return {
    seq: moved ? tail.seq : row.seq,
    event: tail?.id ?? null,
    checkpointSeq: row.seq,
    status: row.status,
    version: row.version,
    owner: row.owner,
  };
}

/** How many ends of runs read but not committed to are kept (`RunEnds.read`). */
const READ_ENDS = 256;

/**
 * The ends of runs one connection remembers, so that a commit need not look them up in the file.
 * A remembered end is trusted only where the commit's link can refuse a stale one (see
 * sqlite-commit.ts): another process may have appended since.
 */
export class RunEnds {
  /** The ends of the live runs this store committed to (or claimed). */
  readonly #committed = new Map<string, RunEnd>();
  /**
   * The ends of the last runs read (`load`) that this store has not committed to: a run read to be
   * woken is committed to next, and its commit need not look its end up again. Bounded: the oldest
   * go first.
   */
  readonly #read = new Map<string, RunEnd>();

  /** The end of a live run this store committed to: where a walk to the run's newest event may start. */
  committedTo(runId: string): RunEnd | undefined {
    return this.#committed.get(runId);
  }

  /** Any end remembered of the run, committed to or only read. */
  known(runId: string): RunEnd | undefined {
    return this.#committed.get(runId) ?? this.#read.get(runId);
  }

  /** Remembers the end of an active run just read, unless this store commits to it already. */
  read(row: RunRow, tail: EventRow | undefined): void {
    if (row.status !== 'active' || this.#committed.has(row.run_id)) return;
    this.#read.delete(row.run_id);
    this.#read.set(row.run_id, endAt(row, tail));
    if (this.#read.size > READ_ENDS) this.#read.delete(this.#read.keys().next().value!);
  }

  /** The ends a batch moved runs to. A run that has ended takes no more events: it is forgotten, so only live runs are kept. */
  committed(moved: ReadonlyMap<string, RunEnd>): void {
    for (const [runId, end] of moved) {
      this.#read.delete(runId);
      if (end.status === 'active') this.#committed.set(runId, end);
      else this.#committed.delete(runId);
    }
  }

  /** The end of a run just claimed: committed to next, as a run this store commits to. */
  claimed(runId: string, end: RunEnd): void {
    if (end.status !== 'active') this.#committed.delete(runId);
    else this.#committed.set(runId, end);
  }

  /** The run was let go: nothing of it is remembered. */
  forget(runId: string): void {
    this.#committed.delete(runId);
    this.#read.delete(runId);
  }
}
