import type Database from 'better-sqlite3';
import { eventRowSum, eventSum, LEASE_SUM, leaseSum, registerChecksum, runCreatedSum, runRowSum, sqlSum } from './sqlite-checksum.js';
import { sqliteLeases } from './sqlite-leases.js';
import { damaged, openError, openSqlite, storeError } from './sqlite-open.js';
import { DEFAULT_SQLITE_PATH } from './sqlite-path.js';
import { leaseFields, storedLease, type EventRow, type RunRow } from './sqlite-rows.js';
import { HISTORY_FROM, prepareSchema, TAIL_FROM } from './sqlite-schema.js';
import { asRead, asWritten, rawText } from './sqlite-text.js';
import {
  CommitConflictError,
  LeaseLostError,
  type Commit,
  type CommitLease,
  type EventRecord,
  type OwnerInfo,
  type RunFilter,
  type Store,
  type StoredRun,
} from '../store.js';
import { StoreClosedError, StoreFullError, StoreOpenError, StoreReadOnlyError } from '../store-errors.js';

export interface SqliteStoreOptions {
  /** SQLite's `synchronous` pragma. FULL (the default) makes every commit survive power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long to wait for another process's write lock before failing (ms, default 5000). */
  busyTimeoutMs?: number;
  /** Page size of a new database file (bytes). */
  pageSize?: number;
  /** Only read: the file must exist, nothing is ever written to it, and commits are refused with StoreReadOnlyError. */
  readOnly?: boolean;
}

export { DEFAULT_SQLITE_PATH };

/**
 * How many commits a run's row in `runs` may lag behind its log before a commit brings it up to
 * date (its status and version never lag). Reading a run follows at most this many links.
 */
const CHECKPOINT_EVERY = 32;

/** What `listByIndex` runs (exported so a test can hold its query plan to the index). */
export const SQLITE_INDEX_QUERY = `SELECT r.*, ${rawText('r.run_id', 'run_id_hex')} FROM run_keys k JOIN runs r ON r.run_id = k.run_id
  WHERE k.machine = ? AND k.key = ? ORDER BY k.sort, k.run_id LIMIT ?`;

/** Where a run's log ends, and how far its `runs` row lags: what a commit needs to append to it. */
interface RunEnd {
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

/**
 * The embedded default store: one SQLite file in WAL mode (tables in sqlite-schema.ts). A batch
 * of commits is one transaction; each step is appended to its run's log only if nothing was
 * appended since the end the writer saw (optimistic concurrency), so several processes can share
 * one file and a stale writer is refused.
 */
export function sqliteStore(path: string = DEFAULT_SQLITE_PATH, options: SqliteStoreOptions = {}): Store {
  const readOnly = options.readOnly ?? false;
  const { db, openedWhileFull } = openSqlite(path, options);
  /** Why this store may not write, as the error a write gets; undefined when it may. */
  const cannotWrite = (): Error | undefined =>
    readOnly ? new StoreReadOnlyError(path) : openedWhileFull ? new StoreFullError(path, { refused: 'the store was opened while the disk was full, so it only reads and the commit was refused; open it again once there is space' }) : undefined;
  try {
    const cannotConvert = (stored: number): never => {
      if (openedWhileFull) throw new StoreFullError(path, { refused: `converting its schema version ${stored} to this statewright's needs space, so it was not opened for writing` });
      throw new StoreOpenError('sqlite', path, `it has schema version ${stored}, which a read-only open cannot convert`, 'Open it once for writing (any command that writes, or sqliteStore(path)) to convert it.');
    };
    prepareSchema(db, path, readOnly || openedWhileFull ? cannotConvert : undefined);
    return sqliteConnection(db, path, cannotWrite);
  } catch (error) {
    db.close();
    throw openError(path, error);
  }
}

/** The store's statements and methods over an open, prepared file. */
function sqliteConnection(db: Database.Database, path: string, cannotWrite: () => Error | undefined): Store {
  registerChecksum(db);
  const insertRun = db.prepare(
    `INSERT INTO runs (run_id, machine, version, status, state, seq, snapshot, input, owner, created_at, updated_at, last_event, created_checksum, checksum,
       lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at, lease_checksum)
     VALUES (@run_id, @machine, @version, @status, @state, @seq, @snapshot, @input, @owner, @created_at, @updated_at, NULL, @created_checksum, @checksum,
       @lease_holder, @lease_state, @lease_epoch, @lease_expires, @lease_renewed, @wake_at, @lease_checksum)
     ON CONFLICT (run_id) DO NOTHING`,
  );
  // The fence (see `fence`): a step of a run is written only while its writer still holds the run's lease.
  const leaseNow = db.prepare<[string], Pick<RunRow, 'status' | 'lease_holder' | 'lease_state' | 'lease_epoch' | 'lease_expires' | 'lease_renewed' | 'wake_at' | 'lease_checksum'>>(
    'SELECT status, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at, lease_checksum FROM runs WHERE run_id = ?',
  );
  // A step that also claims its run (`CommitLease.claims`; the fence checked the released lease the
  // writer read): one write of the row, its checkpoint and the lease it takes together.
  const checkpointClaiming = db.prepare(
    `UPDATE runs SET state = @state, seq = @seq, snapshot = @snapshot, owner = @owner, updated_at = @updated_at, last_event = @last_event, checksum = @checksum,
       lease_holder = @holder, lease_state = 'held', lease_epoch = @epoch, lease_expires = @expires, lease_renewed = @now, wake_at = @wake_at, lease_checksum = @lease_checksum
     WHERE run_id = @run_id`,
  );
  // The same claim where the row's checkpoint stays as it is (see `commitAll`): the lease and the
  // owner only, so the row keeps its size and its page has room for it.
  const claimWithStep = db.prepare(
    `UPDATE runs SET owner = @owner, checksum = @checksum,
       lease_holder = @holder, lease_state = 'held', lease_epoch = @epoch, lease_expires = @expires, lease_renewed = @now, wake_at = @wake_at, lease_checksum = @lease_checksum
     WHERE run_id = @run_id`,
  );
  const renewWithStep = db.prepare(
    `UPDATE runs SET lease_expires = @expires, lease_renewed = @now, wake_at = @wake_at, lease_checksum = @lease_checksum
     WHERE run_id = @run_id AND lease_state = 'held' AND lease_holder = @holder AND lease_epoch = @epoch`,
  );
  // Apart from the renewal: SQLite rewrites the entry of every index over a column the SET list
  // names, even when its value stays, so naming lease_expires here would write an index page per step.
  const moveWake = db.prepare(
    `UPDATE runs SET wake_at = @wake_at, lease_checksum = @lease_checksum
     WHERE run_id = @run_id AND lease_state = 'held' AND lease_holder = @holder AND lease_epoch = @epoch`,
  );
  // An unfenced step (one host) keeps the timer index too; a row whose deadline stays is not written.
  const setWake = db.prepare(
    `UPDATE runs SET wake_at = @wake_at, lease_checksum = ${sqlSum('run_id, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, @wake_at')}
     WHERE run_id = @run_id AND wake_at IS NOT @wake_at AND lease_checksum = ${sqlSum(LEASE_SUM)}`,
  );
  const checkpoint = db.prepare(
    `UPDATE runs SET version = ?, status = ?, state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = ?, checksum = ? WHERE run_id = ?`,
  );
  // Leaving status and version out of the SET list when they stay keeps SQLite from rewriting the two status indexes.
  const checkpointInPlace = db.prepare(`UPDATE runs SET state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = ?, checksum = ? WHERE run_id = ?`);
  const appendEvent = db.prepare(
    `INSERT INTO events (run_id, seq, prev, event, at, actor, reason, idempotency_key, before_state, after_state, result,
       row_state, row_snapshot, row_updated_at, checksum, row_checksum)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The event before no longer ends the run: it points on, and its copy of the row is not needed.
  const link = db.prepare('UPDATE events SET next = ?, row_snapshot = NULL, row_checksum = NULL WHERE id = ? AND next IS NULL');
  const upsertKey = db.prepare(
    `INSERT INTO run_keys (run_id, key, machine, sort) VALUES (?, ?, ?, ?)
     ON CONFLICT (run_id, key) DO UPDATE SET sort = excluded.sort WHERE sort IS NOT excluded.sort`,
  );
  const deleteKey = db.prepare('DELETE FROM run_keys WHERE run_id = ? AND key = ?');
  const byIndex = db.prepare<[string, string, number], RunRow>(SQLITE_INDEX_QUERY);
  const keySetOf = db.prepare<[string], { fingerprint: string }>('SELECT fingerprint FROM run_key_sets WHERE machine = ?');
  const runsOf = db.prepare<[string], RunRow>(`SELECT *, ${rawText('run_id', 'run_id_hex')} FROM runs WHERE machine = ?`);
  const reindex = db.transaction((machine: string, fingerprint: string, keysOf: (run: StoredRun) => Readonly<Record<string, number | null>>) => {
    if (keySetOf.get(machine)?.fingerprint === fingerprint) return 0;
    db.prepare('DELETE FROM run_keys WHERE machine = ?').run(machine);
    let count = 0;
    for (const row of runsOf.all(machine)) {
      const keys = keysOf(current(row));
      for (const key in keys) if (keys[key] !== null && keys[key] !== undefined) upsertKey.run(row.run_id, key, machine, keys[key]);
      count++;
    }
    db.prepare('INSERT INTO run_key_sets (machine, fingerprint) VALUES (?, ?) ON CONFLICT (machine) DO UPDATE SET fingerprint = excluded.fingerprint').run(machine, fingerprint);
    return count;
  });
  const loadRun = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE run_id = ?');
  const scanRun = db.prepare<[string], RunRow>('SELECT * FROM runs NOT INDEXED WHERE run_id = ?');
  const tailFrom = db.prepare<[number], EventRow>(TAIL_FROM);
  const eventById = db.prepare<[number], EventRow>('SELECT * FROM events WHERE id = ?');
  const historyFrom = db.prepare<[number], EventRow>(HISTORY_FROM);
  const idempotent = db.prepare<[string, string], EventRow>('SELECT * FROM events WHERE run_id = ? AND idempotency_key = ?');

  // A runtime writes the same owner on every commit: serialize it once.
  let lastOwner: OwnerInfo | undefined;
  let lastOwnerJson: string | null = null;
  const ownerJson = (owner: OwnerInfo | undefined): string | null => {
    if (owner !== lastOwner) {
      lastOwner = owner;
      lastOwnerJson = owner ? JSON.stringify(owner) : null;
    }
    return lastOwnerJson;
  };

  /** The ends of the live runs this store committed to, so the next commit need not look them up. */
  const ends = new Map<string, RunEnd>();
  /**
   * The ends of the last runs read (`load`) that this store has not committed to: a run read to be
   * woken is committed to next, and its commit need not look its end up again. Bounded: the oldest
   * go first. Trusted as `ends` is, only where the commit's link can refuse a stale one.
   */
  const readEnds = new Map<string, RunEnd>();
  const READ_ENDS = 256;

  /** Where `runId` ends, read from the file: its row, then on along `next`. */
  function endOf(runId: string): RunEnd | undefined {
    const row = findRun(runId);
    return row && endAt(row, tailOf(row));
  }

  /** Where the run of `row` ends, its newest event being `tail`. */
  function endAt(row: RunRow, tail: EventRow | undefined): RunEnd {
    const moved = tail !== undefined && tail.id !== row.last_event;
    return { seq: moved ? tail.seq : row.seq, event: tail?.id ?? null, checkpointSeq: row.seq, status: row.status, version: row.version, owner: row.owner };
  }

  /** Remembers the end of a run just read (see `readEnds`). */
  function rememberRead(row: RunRow, tail: EventRow | undefined): void {
    readEnds.delete(row.run_id);
    readEnds.set(row.run_id, endAt(row, tail));
    if (readEnds.size > READ_ENDS) readEnds.delete(readEnds.keys().next().value!);
  }

  /**
   * IMMEDIATE: the write lock is taken before the runs' ends are read, so no other writer moves
   * them on in between. Each step appends its event and links the event before to it; that link
   * only takes if nothing was appended since (`next IS NULL`), which is what refuses a stale
   * writer, also one whose remembered end (`ends`) is out of date.
   */
  const commitAll = db.transaction((commits: readonly Commit[], moved: Map<string, RunEnd>) => {
    const conflicts: Array<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }> = [];
    const conflict = (runId: string, expectedSeq: number | undefined) => conflicts.push({ runId, expectedSeq, storedSeq: (moved.get(runId) ?? endOf(runId))?.seq });
    const lost: Array<ConstructorParameters<typeof LeaseLostError>[0][number]> = [];
    for (const { run, event, result, expectedSeq, keys, lease, wakeAt = null } of commits) {
      const runId = run.runId;
      let fenced: 'held' | 'lost' | 'missing' | 'unfenced' | undefined;
      /** The run's row, when this step claims the run (see `fence`). */
      let claimedRow: RunRow | undefined;
      const snapshot = JSON.stringify(run.snapshot);
      const owner = ownerJson(run.owner);
      let end: RunEnd | undefined;
      if (expectedSeq !== undefined) {
        const fencedAs = lease ? fence(runId, lease, wakeAt) : 'unfenced';
        if (typeof fencedAs === 'object') claimedRow = fencedAs;
        else fenced = fencedAs;
        if (fenced === 'unfenced') setWake.run({ run_id: runId, wake_at: wakeAt });
        if (fenced === 'missing') conflict(runId, expectedSeq);
        if (fenced === 'lost') lost.push({ runId, holder: lease!.holder, epoch: lease!.epoch, stored: storedLease(findRun(runId)!) });
        if (fenced === 'missing' || fenced === 'lost') continue;
      }
      if (expectedSeq === undefined) {
        const input = JSON.stringify(run.input ?? null);
        const created = insertRun.run({
          run_id: runId,
          machine: run.machine,
          version: run.version,
          status: run.status,
          state: run.state,
          seq: run.seq,
          snapshot,
          input,
          owner,
          created_at: run.createdAt,
          updated_at: run.updatedAt,
          created_checksum: runCreatedSum(runId, run.machine, input, run.createdAt),
          checksum: runRowSum(runId, run.version, run.status, run.state, run.seq, snapshot, owner, run.updatedAt, null),
          lease_holder: lease?.holder ?? null,
          lease_state: lease ? 'held' : null,
          lease_epoch: lease?.epoch ?? null,
          lease_expires: lease?.expiresAt ?? null,
          lease_renewed: lease?.now ?? null,
          wake_at: wakeAt,
          lease_checksum: lease
            ? leaseSum(runId, lease.holder, 'held', lease.epoch, lease.expiresAt, lease.now, wakeAt)
            : leaseSum(runId, null, null, null, null, null, wakeAt),
        }).changes;
        if (created !== 1) {
          conflict(runId, expectedSeq);
          continue;
        }
        end = { seq: run.seq, event: null, checkpointSeq: run.seq, status: run.status, version: run.version, owner };
        if (!event) {
          moved.set(runId, end);
          writeKeys(run, keys);
          continue;
        }
      } else {
        // A remembered end is trusted only where the link below can refuse it: an event appended after an event.
        const known = moved.get(runId) ?? ends.get(runId) ?? readEnds.get(runId);
        end = event && known?.seq === expectedSeq && known.event !== null ? known : endOf(runId);
        if (end?.seq !== expectedSeq) {
          conflict(runId, expectedSeq);
          continue;
        }
      }
      let eventId: number | null = null;
      if (event) {
        const eventJson = JSON.stringify(event.event);
        const actor = event.actor ?? null;
        const reason = event.reason ?? null;
        const key = event.idempotencyKey ?? null;
        const resultJson = result === undefined ? null : JSON.stringify(result);
        try {
          eventId = Number(
            appendEvent.run(
              runId,
              event.seq,
              end.event,
              eventJson,
              event.at,
              actor,
              reason,
              key,
              event.before,
              event.after,
              resultJson,
              run.state,
              snapshot,
              run.updatedAt,
              eventSum(runId, event.seq, end.event, eventJson, event.at, actor, reason, key, event.before, event.after, resultJson),
              eventRowSum(runId, event.seq, run.state, snapshot, run.updatedAt),
            ).lastInsertRowid,
          );
        } catch (error) {
          // A repeated idempotency key from a writer whose remembered end is stale is that writer's conflict.
          if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE' || endOf(runId)?.seq === expectedSeq) throw error;
          conflict(runId, expectedSeq);
          continue;
        }
        if (end.event !== null && link.run(eventId, end.event).changes !== 1) {
          conflict(runId, expectedSeq);
          continue;
        }
      }
      // The row is brought up to date when the run has no event to end on yet (the chain starts
      // from it), when its status, version or owner changes, or when it lags too far. A claiming
      // step writes the lease into the row in any case, and the owner with it; its checkpoint stays
      // unless due for one of the other reasons: a row brought up to date mostly grows (its snapshot
      // from many steps back gives way to today's), and a row that no longer fits splits its page.
      let checkpointSeq = end.checkpointSeq;
      const claiming = claimedRow !== undefined;
      const checkpointDue = end.event === null || eventId === null || run.status !== end.status || run.version !== end.version || run.seq - end.checkpointSeq >= CHECKPOINT_EVERY;
      if (claimedRow && !checkpointDue) {
        const { holder, epoch, expiresAt: expires, now } = lease!;
        const row = claimedRow;
        const checksum = runRowSum(runId, row.version, row.status, row.state, row.seq, row.snapshot, owner, row.updated_at, row.last_event);
        claimWithStep.run({ run_id: runId, owner, checksum, holder, epoch, expires, now, wake_at: wakeAt, lease_checksum: leaseSum(runId, holder, 'held', epoch, expires, now, wakeAt) });
      } else if (claiming || checkpointDue || owner !== end.owner) {
        const lastEvent = eventId ?? end.event;
        const sum = runRowSum(runId, run.version, run.status, run.state, run.seq, snapshot, owner, run.updatedAt, lastEvent);
        const inPlace = run.status === end.status && run.version === end.version;
        if (claiming) {
          const { holder, epoch, expiresAt: expires, now } = lease!;
          const lease_checksum = leaseSum(runId, holder, 'held', epoch, expires, now, wakeAt);
          checkpointClaiming.run({ run_id: runId, state: run.state, seq: run.seq, snapshot, owner, updated_at: run.updatedAt, last_event: lastEvent, checksum: sum, holder, epoch, expires, now, wake_at: wakeAt, lease_checksum });
        }
        if (inPlace && !claiming) checkpointInPlace.run(run.state, run.seq, snapshot, owner, run.updatedAt, lastEvent, sum, runId);
        if (!inPlace) checkpoint.run(run.version, run.status, run.state, run.seq, snapshot, owner, run.updatedAt, lastEvent, sum, runId);
        checkpointSeq = run.seq;
      }
      moved.set(runId, { seq: run.seq, event: eventId ?? end.event, checkpointSeq, status: run.status, version: run.version, owner });
      writeKeys(run, keys);
    }
    // Throwing inside the transaction rolls every statement of the batch back.
    if (lost.length) throw new LeaseLostError(lost);
    if (conflicts.length) throw new CommitConflictError(conflicts);
  });

  /**
   * Whether the writer of a step of `runId` still holds its lease ('held'), and if so keeps the
   * lease and the deadline. The lease is renewed only once a third of its time has passed (the
   * heartbeat, `renew`, keeps it anyway), and the row written only then or when the deadline moves:
   * so most steps write no page beyond their event's, as before leases, and a moved deadline alone
   * leaves the index of leases by expiry as it is.
   *
   * A writer that claims the run with this step (`CommitLease.claims`) finds it released at the
   * epoch it read: then the run's whole row, checked, which the step rewrites with the lease it
   * takes (this transaction holds the write lock, so nothing moves the row meanwhile).
   */
  function fence(runId: string, lease: CommitLease, wakeAt: number | null): 'held' | 'lost' | 'missing' | RunRow {
    const stored = lease.claims === undefined ? leaseNow.get(runId) : findRun(runId);
    if (!stored) return 'missing';
    const { expiresAt, now } = lease;
    if (stored.lease_state !== 'held' || stored.lease_holder !== lease.holder || stored.lease_epoch !== lease.epoch) {
      const claimable = lease.claims !== undefined && stored.status === 'active' && stored.lease_state === 'released' && stored.lease_epoch === lease.claims;
      return claimable ? (stored as RunRow) : 'lost';
    }
    const fenced = { run_id: runId, holder: lease.holder, epoch: lease.epoch, wake_at: wakeAt };
    if (stored.lease_expires! < expiresAt - (expiresAt - now) / 3) {
      renewWithStep.run({ ...fenced, expires: expiresAt, now, lease_checksum: leaseSum(runId, lease.holder, 'held', lease.epoch, expiresAt, now, wakeAt) });
    } else if (stored.wake_at !== wakeAt) {
      // The expiry and renewal stay: their sum is checked first, so a damaged one is not sealed anew.
      const { lease_expires, lease_renewed } = stored;
      checkLeaseSum(runId, stored);
      moveWake.run({ ...fenced, lease_checksum: leaseSum(runId, lease.holder, 'held', lease.epoch, lease_expires, lease_renewed, wakeAt) });
    }
    return 'held';
  }

  /** A stored lease about to be rewritten is checked first, so a damaged one is reported, not sealed anew. */
  function checkLeaseSum(runId: string, stored: Pick<RunRow, 'lease_holder' | 'lease_state' | 'lease_epoch' | 'lease_expires' | 'lease_renewed' | 'wake_at' | 'lease_checksum'>): void {
    const { lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at } = stored;
    if (stored.lease_checksum !== leaseSum(runId, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at)) {
      throw damaged(path, `run ${runId}: its lease or next deadline in the runs table is not what was written (checksum)`);
    }
  }

  function writeKeys(run: StoredRun, keys: Commit['keys']): void {
    if (!keys) return;
    for (const key in keys) {
      const sort = keys[key];
      if (sort === null || sort === undefined) deleteKey.run(run.runId, key);
      else upsertKey.run(run.runId, key, run.machine, sort);
    }
  }

  /**
   * The newest event of the run whose `runs` row is `row`, or undefined when it has none. Starts
   * from the end this store remembers (any event of the chain will do: the chain only grows), else
   * from the row's checkpoint; usually that event is the end, and the walk along `next` is skipped.
   * The end must be the run's and carry its row (every newest event does): a damaged link that
   * ends the walk early, or leads elsewhere, is found here rather than read as an older state.
   */
  function tailOf(row: RunRow): EventRow | undefined {
    const start = ends.get(row.run_id)?.event ?? row.last_event;
    if (start === null) return undefined;
    const event = eventById.get(start);
    const tail = event && event.next !== null ? tailFrom.get(event.next) : event;
    if (!tail) throw damaged(path, `run ${row.run_id}: its event ${start} is missing`);
    ownedBy(tail, row.run_id);
    if (tail.run_id !== row.run_id || tail.row_snapshot === null || tail.row_checksum !== eventRowSum(tail.run_id, tail.seq, tail.row_state, tail.row_snapshot, tail.row_updated_at)) {
      throw damaged(path, `run ${row.run_id}: the newest event its log leads to (id ${tail.id}) does not hold the run's row as written (checksum)`);
    }
    return tail;
  }

  /** A run as it is now: its `runs` row (read with its id's bytes), or, when its log has moved on, the row its newest event holds. */
  function current(row: RunRow): StoredRun {
    row.run_id = asWritten(row.run_id, row.run_id_hex);
    checkRun(row);
    return asOfTail(row, tailOf(row));
  }

  /** The run of a checked `row` whose newest event is `tail`. */
  function asOfTail(row: RunRow, tail: EventRow | undefined): StoredRun {
    if (!tail || tail.id === row.last_event) return toRun(row);
    return {
      runId: row.run_id,
      machine: row.machine,
      version: row.version,
      status: row.status,
      state: tail.row_state!,
      seq: tail.seq,
      snapshot: parse(row.run_id, 'snapshot', tail.row_snapshot!),
      input: parse(row.run_id, 'input', row.input),
      owner: row.owner ? parse<OwnerInfo>(row.run_id, 'owner', row.owner) : undefined,
      createdAt: row.created_at,
      updatedAt: tail.row_updated_at!,
      ...leaseFields(row),
    };
  }

  const toRun = (row: RunRow): StoredRun => ({
    runId: row.run_id,
    machine: row.machine,
    version: row.version,
    status: row.status,
    state: row.state,
    seq: row.seq,
    snapshot: parse(row.run_id, 'snapshot', row.snapshot),
    input: parse(row.run_id, 'input', row.input),
    owner: row.owner ? parse<OwnerInfo>(row.run_id, 'owner', row.owner) : undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...leaseFields(row),
  });

  /**
   * The `runs` row of `runId`, checked. A run the index does not find is looked for in the table
   * itself (a scan, only for a run that does not exist), so a damaged index cannot hide one.
   */
  function findRun(runId: string): RunRow | undefined {
    const row = loadRun.get(runId);
    if (!row) {
      if (scanRun.get(runId)) throw damaged(path, `run ${runId} is in the runs table but its index does not find it (SQLite's REINDEX rebuilds the index)`);
      return undefined;
    }
    ownedBy(row, runId);
    checkRun(row);
    if (row.run_id !== runId) throw damaged(path, `the runs index leads run ${runId} to the row of run ${String(row.run_id)}`);
    return row;
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
      row.checksum !== runRowSum(row.run_id, row.version, row.status, row.state, row.seq, row.snapshot, row.owner, row.updated_at, row.last_event)
    ) {
      throw damaged(path, `run ${String(row.run_id)}: its row in the runs table is not what was written (checksum)`);
    }
    if (row.lease_checksum !== leaseSum(row.run_id, row.lease_holder, row.lease_state, row.lease_epoch, row.lease_expires, row.lease_renewed, row.wake_at)) {
      throw damaged(path, `run ${String(row.run_id)}: its lease or next deadline in the runs table is not what was written (checksum)`);
    }
  }

  /** An event whose checksum matches what it holds and that belongs to `runId`, or StoreCorruptionError. */
  function checkEvent(row: EventRow, runId: string): void {
    ownedBy(row, runId);
    const sum = eventSum(row.run_id, row.seq, row.prev, row.event, row.at, row.actor, row.reason, row.idempotency_key, row.before_state, row.after_state, row.result);
    if (row.checksum !== sum || row.run_id !== runId) throw damaged(path, `run ${runId}: its event ${String(row.seq)} (id ${row.id}) is not what was written (checksum)`);
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
    if (rows.at(-1)?.seq !== end.seq) throw damaged(path, `run ${runId}: its log ends at event ${rows.at(-1)?.seq ?? 0}, its row is at ${end.seq}`);
    return rows;
  }

  /** Runs a statement; a damaged file gives StoreCorruptionError naming it, a full disk StoreFullError, a closed store StoreClosedError. */
  function guarded<T>(work: () => T): Promise<T> {
    if (!db.open) return Promise.reject(new StoreClosedError('sqlite', path));
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(storeError(path, error));
    }
  }

  return {
    kind: 'sqlite',
    commit(commits) {
      const refused = cannotWrite();
      if (refused) return Promise.reject(refused);
      return guarded(() => {
        const moved = new Map<string, RunEnd>();
        commitAll.immediate(commits, moved);
        // A run that has ended takes no more events: forget it, so the map holds live runs only.
        for (const [runId, end] of moved) {
          readEnds.delete(runId);
          if (end.status === 'active') ends.set(runId, end);
          else ends.delete(runId);
        }
      });
    },
    load(runId) {
      return guarded(() => {
        const row = findRun(runId);
        if (!row) return undefined;
        checkRun(row);
        const tail = tailOf(row);
        if (row.status === 'active' && !ends.has(runId)) rememberRead(row, tail);
        return asOfTail(row, tail);
      });
    },
    list(filter: RunFilter = {}) {
      return guarded(() => listRuns(filter));
    },
    history(runId) {
      return guarded(() =>
        historyOf(runId).map(
          (row): EventRecord => ({
            runId: row.run_id,
            seq: row.seq,
            event: parse<EventRecord['event']>(runId, `event ${row.seq}`, row.event),
            at: row.at,
            before: row.before_state,
            after: row.after_state,
            ...(row.actor !== null && { actor: row.actor }),
            ...(row.reason !== null && { reason: row.reason }),
            ...(row.idempotency_key !== null && { idempotencyKey: row.idempotency_key }),
          }),
        ),
      );
    },
    findIdempotent(runId, key) {
      return guarded(() => {
        const row = idempotent.get(runId, key);
        if (!row) return undefined;
        checkEvent(row, runId);
        if (row.idempotency_key !== key) throw damaged(path, `run ${runId}: the index of idempotency keys leads key ${key} to event ${row.seq}, which has another`);
        return { seq: row.seq, result: row.result === null ? undefined : parse(runId, `result of event ${row.seq}`, row.result) };
      });
    },
    syncIndex(machine, fingerprint, keysOf) {
      return guarded(() => {
        // Up to date (the usual case) is found without a write, so a read-only store can be synced.
        if (keySetOf.get(machine)?.fingerprint === fingerprint) return 0;
        const refused = cannotWrite();
        if (refused) throw refused;
        // IMMEDIATE: no other writer commits to these runs between reading them and keying them.
        return reindex.immediate(machine, fingerprint, keysOf);
      });
    },
    listByIndex(machine, key, options = {}) {
      return guarded(() => byIndex.all(machine, key, options.limit ?? -1).map(current));
    },
    leases: sqliteLeases(db, {
      findRun,
      claimed: (row) => {
        const tail = tailOf(row);
        const run = asOfTail(row, tail);
        if (row.status !== 'active') ends.delete(row.run_id);
        else ends.set(row.run_id, { seq: run.seq, event: tail?.id ?? null, checkpointSeq: row.seq, status: row.status, version: row.version, owner: row.owner });
        return run;
      },
      forget: (runId) => {
        ends.delete(runId);
        readEnds.delete(runId);
      },
      write: (work) => {
        const refused = cannotWrite();
        return refused ? Promise.reject(refused) : guarded(work);
      },
      read: guarded,
      damaged: (reason) => damaged(path, reason),
    }),
    checkIntegrity() {
      return guarded(() => {
        const found = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
        return found.map((row) => row.integrity_check).filter((problem) => problem !== 'ok').map((problem) => `${path}: ${problem}`);
      });
    },
    async close() {
      if (db.open) db.close();
    },
  };

  function listRuns(filter: RunFilter): StoredRun[] {
    // status is always current in `runs`; state may lag, so it is filtered on the current rows.
    const where: string[] = [];
    const params: string[] = [];
    for (const [column, value] of [['machine', filter.machine], ['status', filter.status]] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    const sql = `SELECT *, ${rawText('run_id', 'run_id_hex')} FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, run_id`;
    const runs = (db.prepare(sql).all(...params) as RunRow[]).map(current);
    return filter.state === undefined ? runs : runs.filter((run) => run.state === filter.state);
  }
}
