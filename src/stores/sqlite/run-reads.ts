import { eventRowSum, eventSum, leaseSum, runCreatedSum, runRowSum } from './sqlite-checksum.js';
import { damaged } from './sqlite-open.js';
import { storedLease, type EventRow, type RunRow } from './sqlite-rows.js';
import { asRead, asWritten } from './sqlite-text.js';
import { endAt, type RunEnd, type RunEnds } from './run-ends.js';
import type { Statements } from './statements.js';
import { storedRun, type OwnerInfo, type StoredRun } from '../store.js';

/**
 * Reading runs and events from a SQLite store's file, every row checked against its checksums: a
 * damaged row is reported as StoreCorruptionError naming the file, never read as an older state.
 */
export function sqliteReads(statements: Statements, path: string, ends: RunEnds) {
  const { loadRun, scanRun, eventById, tailFrom, historyFrom } = statements;

  /**
   * The `runs` row of `runId`, checked. A run the index does not find is looked for in the table
   * itself (a scan, only for a run that does not exist), so a damaged index cannot hide one.
   */
  function findRun(runId: string): RunRow | undefined {
    const row = loadRun.get(runId);
    if (!row) {
      if (scanRun.get(runId))
        throw damaged(
          path,
          `run ${runId} is in the runs table but its index does not find it (SQLite's REINDEX rebuilds the index)`,
        );
      return undefined;
    }
    ownedBy(row, runId);
    checkRun(row);
    if (row.run_id !== runId)
      throw damaged(path, `the runs index leads run ${runId} to the row of run ${String(row.run_id)}`);
    return row;
  }

  /** Where `runId` ends, read from the file: its row, then on along `next`. */
  function endOf(runId: string): RunEnd | undefined {
    const row = findRun(runId);
    return row && endAt(row, tailOf(row));
  }

  /**
   * The newest event of the run whose `runs` row is `row`, or undefined when it has none. Starts
   * from the end this store remembers (any event of the chain will do: the chain only grows), else
   * from the row's checkpoint; usually that event is the end, and the walk along `next` is skipped.
   * The end must be the run's and carry its row (every newest event does): a damaged link that
   * ends the walk early, or leads elsewhere, is found here rather than read as an older state.
   */
  function tailOf(row: RunRow): EventRow | undefined {
    const start = ends.committedTo(row.run_id)?.event ?? row.last_event;
    if (start === null) return undefined;
    const event = eventById.get(start);
    const tail = event && event.next !== null ? tailFrom.get(event.next) : event;
    if (!tail) throw damaged(path, `run ${row.run_id}: its event ${start} is missing`);
    ownedBy(tail, row.run_id);
    if (
      tail.run_id !== row.run_id ||
      tail.row_snapshot === null ||
      tail.row_checksum !== eventRowSum(tail.run_id, tail.seq, tail.row_state, tail.row_snapshot, tail.row_updated_at)
    ) {
      throw damaged(
        path,
        `run ${row.run_id}: the newest event its log leads to (id ${tail.id}) does not hold the run's row as written (checksum)`,
      );
    }
    return tail;
  }

  /** A run as it is now: its `runs` row (read with its id's bytes), or, when its log has moved on, the row its newest event holds. */
  function current(row: RunRow): StoredRun {
    row.run_id = asWritten(row.run_id, row.run_id_hex);
    checkRun(row);
    return runOf(row, tailOf(row));
  }

  /** The run of a checked `row` whose newest event is `tail`: the row's checkpoint, or the row the event carries when the log has moved on. */
  function runOf(row: RunRow, tail: EventRow | undefined): StoredRun {
    const moved = tail !== undefined && tail.id !== row.last_event;
    return storedRun({
      runId: row.run_id,
      machine: row.machine,
      version: row.version,
      status: row.status,
      state: moved ? tail.row_state! : row.state,
      snapshot: parse(row.run_id, 'snapshot', moved ? tail.row_snapshot! : row.snapshot),
      input: parse(row.run_id, 'input', row.input),
      seq: moved ? tail.seq : row.seq,
      owner: row.owner ? parse<OwnerInfo>(row.run_id, 'owner', row.owner) : undefined,
      createdAt: row.created_at,
      updatedAt: moved ? tail.row_updated_at! : row.updated_at,
      wakeAt: row.wake_at,
      lease: storedLease(row),
    });
  }

  /**
   * A row found for `runId` carries it as written: an id that is not well-formed Unicode reads back
   * otherwise (see sqlite-text.ts), so the row's id is put back before its checksums are checked.
   */
  function ownedBy(row: { run_id: string }, runId: string): void {
    if (row.run_id !== runId && row.run_id === asRead(runId)) row.run_id = runId;
  }

  /** A `runs` row whose checksums match what it holds, or StoreCorruptionError. */
  function checkRun(row: RunRow): void {
    if (
      row.created_checksum !== runCreatedSum(row.run_id, row.machine, row.input, row.created_at) ||
      row.checksum !==
        runRowSum(
          row.run_id,
          row.version,
          row.status,
          row.state,
          row.seq,
          row.snapshot,
          row.owner,
          row.updated_at,
          row.last_event,
        )
    ) {
      throw damaged(path, `run ${String(row.run_id)}: its row in the runs table is not what was written (checksum)`);
    }
    checkLeaseSum(row.run_id, row);
  }

  /** A run's lease and next deadline whose checksum matches, or StoreCorruptionError. */
  function checkLeaseSum(
    runId: string,
    stored: Pick<
      RunRow,
      'lease_holder' | 'lease_state' | 'lease_epoch' | 'lease_expires' | 'lease_renewed' | 'wake_at' | 'lease_checksum'
    >,
  ): void {
    const { lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at } = stored;
    if (
      stored.lease_checksum !==
      leaseSum(runId, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at)
    ) {
      throw damaged(
        path,
        `run ${String(runId)}: its lease or next deadline in the runs table is not what was written (checksum)`,
      );
    }
  }

  /** An event whose checksum matches what it holds and that belongs to `runId`, or StoreCorruptionError. */
  function checkEvent(row: EventRow, runId: string): void {
    ownedBy(row, runId);
    const sum = eventSum(
      row.run_id,
      row.seq,
      row.prev,
      row.event,
      row.at,
      row.actor,
      row.reason,
      row.idempotency_key,
      row.before_state,
      row.after_state,
      row.result,
      row.credential,
    );
    if (row.checksum !== sum || row.run_id !== runId)
      throw damaged(
        path,
        `run ${runId}: its event ${String(row.seq)} (id ${row.id}) is not what was written (checksum)`,
      );
  }

  /** JSON the store wrote; checksums make a parse error unlikely, but one is damage all the same. */
  function parse<T = unknown>(runId: string, what: string, json: string): T {
    try {
      return JSON.parse(json) as T;
    } catch (error) {
      throw damaged(path, `run ${runId}: its ${what} is not JSON (${(error as Error).message})`);
    }
  }

  /** A run's events, oldest first: checked one by one, and seq 1, 2, 3... up to its end, so a lost link shows. */
  function historyOf(runId: string): EventRow[] {
    const end = endOf(runId);
    if (end?.event === null || end?.event === undefined) return [];
    const rows = historyFrom.all(end.event);
    rows.forEach((row, i) => {
      checkEvent(row, runId);
      if (row.seq !== i + 1) throw damaged(path, `run ${runId}: its log skips from event ${i} to event ${row.seq}`);
    });
    if (rows.at(-1)?.seq !== end.seq)
      throw damaged(path, `run ${runId}: its log ends at event ${rows.at(-1)?.seq ?? 0}, its row is at ${end.seq}`);
    return rows;
  }

  return { findRun, endOf, tailOf, current, runOf, checkRun, checkLeaseSum, checkEvent, parse, historyOf };
}

/** The checked reads of one connection. */
export type Reads = ReturnType<typeof sqliteReads>;
