/**
 * Every SQL text the SQLite store runs, each named after what it does (the tables and their
 * upgrades are in sqlite-schema.ts). Texts and pure builders only: the store prepares them
 * (`prepareStatements`, and the leases in sqlite-leases.ts) and calls them by these names.
 */
import type Database from 'better-sqlite3';
import { LEASE_SUM, sqlSum } from './sqlite-checksum.js';
import type { EventRow, RunRow } from './sqlite-rows.js';
import { rawText } from './sqlite-text.js';
import { likeContaining, type RunFilter, type RunPageQuery } from '../store.js';

/* Runs: created, read, listed. */

export const INSERT_RUN = `INSERT INTO runs (run_id, machine, version, status, state, seq, snapshot, input, owner, created_at, updated_at, last_event, created_checksum, checksum,
       lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at, lease_checksum)
     VALUES (@run_id, @machine, @version, @status, @state, @seq, @snapshot, @input, @owner, @created_at, @updated_at, NULL, @created_checksum, @checksum,
       @lease_holder, @lease_state, @lease_epoch, @lease_expires, @lease_renewed, @wake_at, @lease_checksum)
     ON CONFLICT (run_id) DO NOTHING`;

export const LOAD_RUN = 'SELECT * FROM runs WHERE run_id = ?';
/** The same, without the index: a run the index does not find is looked for in the table itself. */
export const SCAN_RUN = 'SELECT * FROM runs NOT INDEXED WHERE run_id = ?';
export const RUNS_OF_MACHINE = `SELECT *, ${rawText('run_id', 'run_id_hex')} FROM runs WHERE machine = ?`;

/** The filter's columns that `runs` holds current (machine, status) as conditions on parameters; `table.` prefixes them. */
function currentColumns(
  filter: Pick<RunFilter, 'machine' | 'status'>,
  table = '',
): { where: string[]; params: string[] } {
  const where: string[] = [];
  const params: string[] = [];
  for (const [column, value] of [
    ['machine', filter.machine],
    ['status', filter.status],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${table}${column} = ?`);
    params.push(value);
  }
  return { where, params };
}

/** `Store.list`: status is always current in `runs`; state may lag, so the caller filters it on the current rows. */
export function listRuns(filter: RunFilter): { sql: string; params: string[] } {
  const { where, params } = currentColumns(filter);
  return {
    sql: `SELECT *, ${rawText('run_id', 'run_id_hex')} FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, run_id`,
    params,
  };
}

/** What a page of runs asks SQL for: the filter's columns that `runs` holds current, and the search. */
export type PageFilter = Pick<RunPageQuery, 'machine' | 'status' | 'q'>;

/**
 * `Store.listPage`: the runs after the cursor `(created_at, run_id) < (?, ?)` (when `after`),
 * newest first, `LIMIT ?`. It walks one of `PAGE_INDEXES` (sqlite-schema.ts) backwards, the one
 * whose leading columns the filter fixes, and reads a row only once its index entry passes: the
 * search (`q`, a LIKE, which ignores the case of A-Z as `runIdHas` does) is tested on the run id the
 * entry holds. State is not here: it may lag in `runs`, so the caller filters the current rows.
 */
export function pageRuns(filter: PageFilter, after: boolean): { sql: string; params: string[] } {
  const { where, params } = currentColumns(filter);
  if (filter.q) {
    where.push("run_id LIKE ? ESCAPE '\\'");
    params.push(likeContaining(filter.q));
  }
  if (after) where.push('(created_at, run_id) < (?, ?)');
  return {
    sql: `SELECT *, ${rawText('run_id', 'run_id_hex')} FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, run_id DESC LIMIT ?`,
    params,
  };
}

/**
 * `Store.countByState`: the runs of the filter counted by lifecycle, status and current state. A run's state is
 * its `runs` row's, unless its log has moved past that checkpoint: then the newest event's copy of
 * the row holds it, reached from the checkpoint's event along `next` (at most `CHECKPOINT_EVERY`
 * links, each a rowid lookup), as a read does (`tailOf` in run-reads.ts). One statement, so one
 * consistent read of the file.
 */
export function countRuns(filter: Pick<RunFilter, 'machine' | 'status'>): { sql: string; params: string[] } {
  const { where, params } = currentColumns(filter, 'r.');
  return {
    sql: `WITH RECURSIVE walk(machine, status, state, id, next) AS (
  SELECT r.machine, r.status, r.state, e.id, e.next FROM runs AS r LEFT JOIN events AS e ON e.id = r.last_event${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
  UNION ALL
  SELECT walk.machine, walk.status, e.row_state, e.id, e.next FROM walk JOIN events AS e ON e.id = walk.next WHERE walk.next > walk.id
)
SELECT machine, status, state, count(*) AS runs FROM walk WHERE next IS NULL OR next <= id GROUP BY machine, status, state`,
    params,
  };
}

/* The fence: a step of a run is written only while its writer still holds the run's lease. */

export const LEASE_NOW =
  'SELECT status, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at, lease_checksum FROM runs WHERE run_id = ?';

export const RENEW_WITH_STEP = `UPDATE runs SET lease_expires = @expires, lease_renewed = @now, wake_at = @wake_at, lease_checksum = @lease_checksum
     WHERE run_id = @run_id AND lease_state = 'held' AND lease_holder = @holder AND lease_epoch = @epoch`;

/**
 * Apart from the renewal: SQLite rewrites the entry of every index over a column the SET list
 * names, even when its value stays, so naming lease_expires here would write an index page per step.
 */
export const MOVE_WAKE = `UPDATE runs SET wake_at = @wake_at, lease_checksum = @lease_checksum
     WHERE run_id = @run_id AND lease_state = 'held' AND lease_holder = @holder AND lease_epoch = @epoch`;

/** An unfenced step (one host) keeps the timer index too; a row whose deadline stays is not written. */
export const SET_WAKE = `UPDATE runs SET wake_at = @wake_at, lease_checksum = ${sqlSum('run_id, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, @wake_at')}
     WHERE run_id = @run_id AND wake_at IS NOT @wake_at AND lease_checksum = ${sqlSum(LEASE_SUM)}`;

/*
 * The row writes of a step, one per `RowWrite` (row-write.ts). Leaving status and version out of
 * the SET list when they stay keeps SQLite from rewriting the two status indexes.
 */

/** 'checkpoint': the row brought up to date, status and version as they are. */
export const CHECKPOINT = `UPDATE runs SET state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = ?, checksum = ? WHERE run_id = ?`;

/** 'checkpoint and status': the same, and the run's new status or version. */
export const CHECKPOINT_WITH_STATUS = `UPDATE runs SET version = ?, status = ?, state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = ?, checksum = ? WHERE run_id = ?`;

/** The lease a claiming step takes (`CommitLease.claims`), as the SET list of a row write. */
const LEASE_TAKEN = `lease_holder = @holder, lease_state = 'held', lease_epoch = @epoch, lease_expires = @expires, lease_renewed = @now, wake_at = @wake_at, lease_checksum = @lease_checksum`;

/**
 * 'lease': a claiming step whose checkpoint stays as it is: the lease and the owner only, so the
 * row keeps its size and its page has room for it.
 */
export const CLAIM_WITH_STEP = `UPDATE runs SET owner = @owner, checksum = @checksum,
       ${LEASE_TAKEN}
     WHERE run_id = @run_id`;

/** 'checkpoint and lease': one write of the row, its checkpoint and the lease it takes together. */
export const CHECKPOINT_CLAIMING = `UPDATE runs SET state = @state, seq = @seq, snapshot = @snapshot, owner = @owner, updated_at = @updated_at, last_event = @last_event, checksum = @checksum,
       ${LEASE_TAKEN}
     WHERE run_id = @run_id`;

/** 'checkpoint, status and lease': the same, and the run's new status or version. */
export const CHECKPOINT_WITH_STATUS_CLAIMING = `UPDATE runs SET version = @version, status = @status, state = @state, seq = @seq, snapshot = @snapshot, owner = @owner,
       updated_at = @updated_at, last_event = @last_event, checksum = @checksum,
       ${LEASE_TAKEN}
     WHERE run_id = @run_id`;

/* The log: each run's events, chained both ways (see sqlite-schema.ts). */

export const APPEND_EVENT = `INSERT INTO events (run_id, seq, prev, event, at, actor, reason, idempotency_key, before_state, after_state, result,
       credential, row_state, row_snapshot, row_updated_at, checksum, row_checksum)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * The event before no longer ends the run: it points on, and its copy of the row is not needed.
 * Only if nothing was appended since (`next IS NULL`): what refuses a stale writer.
 */
export const LINK_EVENT =
  'UPDATE events SET next = ?, row_snapshot = NULL, row_checksum = NULL WHERE id = ? AND next IS NULL';

/**
 * The link of the usual step of a run held here, fenced in the same statement: it takes only if
 * the writer still holds the run's lease at its epoch, the lease needs no renewing yet (it runs out
 * after the renewal point) and the run's deadline stays as it is, i.e. when the fence would write
 * nothing. Otherwise nothing changes, and the step is fenced as any other (sqlite-commit.ts).
 * Parameters by position (next, id, run id, holder, epoch, renewal point, deadline): every step of
 * a held run binds them, and a named parameter costs a property lookup through V8's API.
 */
export const LINK_EVENT_FENCED = `UPDATE events SET next = ?, row_snapshot = NULL, row_checksum = NULL
     WHERE id = ? AND next IS NULL AND EXISTS (SELECT 1 FROM runs WHERE run_id = ? AND lease_state = 'held'
       AND lease_holder = ? AND lease_epoch = ? AND lease_expires >= ? AND wake_at IS ?)`;

export const EVENT_BY_ID = 'SELECT * FROM events WHERE id = ?';

export const IDEMPOTENT_EVENT = 'SELECT * FROM events WHERE run_id = ? AND idempotency_key = ?';

/**
 * The newest event of the chain that goes on from event `?`: a run's current end. A link only ever
 * points forward (ids grow), so a damaged one that does not ends the walk instead of looping.
 */
export const TAIL_FROM = `
WITH RECURSIVE forward(id, hops) AS (
  SELECT ?, 0
  UNION ALL
  SELECT e.next, forward.hops + 1 FROM events AS e JOIN forward ON e.id = forward.id WHERE e.next > e.id
)
SELECT e.* FROM events AS e WHERE e.id = (SELECT id FROM forward ORDER BY hops DESC LIMIT 1)`;

/** A run's events in seq order: from its newest event `?` back through each one's `prev` (which points back). */
export const HISTORY_FROM = `
WITH RECURSIVE chain(id) AS (
  SELECT ?
  UNION ALL
  SELECT e.prev FROM events AS e JOIN chain ON e.id = chain.id WHERE e.prev < e.id
)
SELECT e.* FROM chain JOIN events AS e ON e.id = chain.id ORDER BY e.seq`;

/* Index keys (`Commit.keys`, `Store.syncIndex`, `Store.listByIndex`). */

export const UPSERT_KEY = `INSERT INTO run_keys (run_id, key, machine, sort) VALUES (?, ?, ?, ?)
     ON CONFLICT (run_id, key) DO UPDATE SET sort = excluded.sort WHERE sort IS NOT excluded.sort`;
export const DELETE_KEY = 'DELETE FROM run_keys WHERE run_id = ? AND key = ?';
export const DELETE_KEYS_OF_MACHINE = 'DELETE FROM run_keys WHERE machine = ?';
export const KEY_SET_OF = 'SELECT fingerprint FROM run_key_sets WHERE machine = ?';
export const SET_KEY_SET =
  'INSERT INTO run_key_sets (machine, fingerprint) VALUES (?, ?) ON CONFLICT (machine) DO UPDATE SET fingerprint = excluded.fingerprint';

/** What `listByIndex` runs (a test holds its query plan to the index). */
export const LIST_BY_INDEX = `SELECT r.*, ${rawText('r.run_id', 'run_id_hex')} FROM run_keys k JOIN runs r ON r.run_id = k.run_id
  WHERE k.machine = ? AND k.key = ? ORDER BY k.sort, k.run_id LIMIT ?`;

/* Leases (sqlite-leases.ts). */

/** A run the sweep found: its id as read, and its bytes where they may differ (see sqlite-text.ts). */
export type Found = { run_id: string; run_id_hex: string | null };
/** What each sweep query selects: the id as written can be read back from it. */
const FOUND = `run_id, ${rawText('run_id', 'run_id_hex')}`;

/**
 * Leaves out the runs the sweeper passes over (`claimDue`'s `passOver`, a JSON array of ids). By id
 * alone: a row's `seq` may lag behind its log (see sqlite-schema.ts), so it cannot say a run moved.
 */
const NOT_PASSED_OVER = 'run_id NOT IN (SELECT value FROM json_each(?))';

/**
 * The sweep's queries, one per kind of run it claims. Each names its partial index (LEASE_INDEXES
 * in sqlite-schema.ts: `INDEXED BY`, as the planner would otherwise walk `runs_newest_by_status` over every
 * active run) and repeats its WHERE clause word for word, which a partial index needs. The runs the
 * sweeper passes over are left out before the LIMIT, so they never crowd out the others.
 */
export const SWEEP_QUERIES = {
  expired: `SELECT ${FOUND} FROM runs INDEXED BY runs_held WHERE lease_state = 'held' AND status = 'active' AND lease_expires <= ? AND ${NOT_PASSED_OVER} ORDER BY lease_expires LIMIT ?`,
  heldBy: `SELECT ${FOUND} FROM runs INDEXED BY runs_held WHERE lease_state = 'held' AND status = 'active' AND lease_holder = ? AND ${NOT_PASSED_OVER} LIMIT ?`,
  due: `SELECT ${FOUND} FROM runs INDEXED BY runs_asleep_by_wake WHERE lease_state IS NOT 'held' AND status = 'active' AND wake_at IS NOT NULL AND wake_at <= ? AND ${NOT_PASSED_OVER} ORDER BY wake_at LIMIT ?`,
  handedOver: `SELECT ${FOUND} FROM runs INDEXED BY runs_handed_over WHERE lease_state = 'handedOver' AND status = 'active' AND ${NOT_PASSED_OVER} LIMIT ?`,
  holders: `SELECT owner, count(*) AS runs FROM runs INDEXED BY runs_held WHERE lease_state = 'held' AND status = 'active' GROUP BY lease_holder, owner`,
} as const;

/** A claim: the owner is covered by the row's checksum, which a claim computes anew from the row it checked. */
export const TAKE_LEASE = `UPDATE runs SET lease_holder = @holder, lease_state = 'held', lease_epoch = @epoch, lease_expires = @expires, lease_renewed = @now,
       lease_checksum = @lease_checksum, owner = @owner, checksum = @checksum
     WHERE run_id = @run_id`;

/**
 * A heartbeat's renewals. A lease whose stored sum does not match is left alone (not renewed,
 * reported lost): the next read of that run reports the damage instead of a recomputed sum hiding it.
 */
export const RENEW_LEASES = `UPDATE runs SET lease_expires = @expires, lease_renewed = @now,
       lease_checksum = ${sqlSum('run_id, lease_holder, lease_state, lease_epoch, @expires, @now, wake_at')}
     FROM (SELECT value ->> 0 AS id, value ->> 1 AS held_epoch FROM json_each(@leases)) AS mine
     WHERE run_id = mine.id AND lease_holder = @holder AND lease_state = 'held' AND lease_epoch = mine.held_epoch
       AND lease_checksum = ${sqlSum(LEASE_SUM)}
     RETURNING run_id`;

/** Leases let go, each with the run's next deadline; a damaged one is left alone, as in `RENEW_LEASES`. */
export const RELEASE_LEASES = `UPDATE runs SET lease_state = @state, lease_renewed = @now, wake_at = mine.next_wake,
       lease_checksum = ${sqlSum('run_id, lease_holder, @state, lease_epoch, lease_expires, @now, mine.next_wake')}
     FROM (SELECT value ->> 0 AS id, value ->> 1 AS held_epoch, value ->> 2 AS next_wake FROM json_each(@leases)) AS mine
     WHERE run_id = mine.id AND lease_holder = @holder AND lease_state = 'held' AND lease_epoch = mine.held_epoch
       AND lease_checksum = ${sqlSum(LEASE_SUM)}`;

/** The `synchronous` pragma at `level`: a claim for one event is written without its own fsync (see sqlite-leases.ts). */
export const setSynchronous = (level: number | 'NORMAL') => `PRAGMA synchronous = ${level}`;

type Statement<P extends unknown[] = unknown[], R = unknown> = Database.Statement<P, R>;

/** What LEASE_NOW reads of a run: its status, lease and wake time. */
type LeaseNowRow = Pick<
  RunRow,
  | 'status'
  | 'lease_holder'
  | 'lease_state'
  | 'lease_epoch'
  | 'lease_expires'
  | 'lease_renewed'
  | 'wake_at'
  | 'lease_checksum'
>;

/** The prepared statements of one connection. */
export interface Statements {
  insertRun: Statement;
  loadRun: Statement<[string], RunRow>;
  scanRun: Statement<[string], RunRow>;
  runsOfMachine: Statement<[string], RunRow>;
  leaseNow: Statement<[string], LeaseNowRow>;
  renewWithStep: Statement;
  moveWake: Statement;
  setWake: Statement;
  checkpoint: Statement;
  checkpointWithStatus: Statement;
  claimWithStep: Statement;
  checkpointClaiming: Statement;
  checkpointWithStatusClaiming: Statement;
  appendEvent: Statement;
  linkEvent: Statement;
  linkEventFenced: Statement;
  eventById: Statement<[number], EventRow>;
  idempotentEvent: Statement<[string, string], EventRow>;
  tailFrom: Statement<[number], EventRow>;
  historyFrom: Statement<[number], EventRow>;
  upsertKey: Statement;
  deleteKey: Statement;
  keySetOf: Statement<[string], { fingerprint: string }>;
  listByIndex: Statement<[string, string, number], RunRow>;
}

/** The store's statements, prepared once on its connection, by the names above. */
export function prepareStatements(db: Database.Database): Statements {
  return {
    insertRun: db.prepare(INSERT_RUN),
    loadRun: db.prepare<[string], RunRow>(LOAD_RUN),
    scanRun: db.prepare<[string], RunRow>(SCAN_RUN),
    runsOfMachine: db.prepare<[string], RunRow>(RUNS_OF_MACHINE),
    leaseNow: db.prepare<[string], LeaseNowRow>(LEASE_NOW),
    renewWithStep: db.prepare(RENEW_WITH_STEP),
    moveWake: db.prepare(MOVE_WAKE),
    setWake: db.prepare(SET_WAKE),
    checkpoint: db.prepare(CHECKPOINT),
    checkpointWithStatus: db.prepare(CHECKPOINT_WITH_STATUS),
    claimWithStep: db.prepare(CLAIM_WITH_STEP),
    checkpointClaiming: db.prepare(CHECKPOINT_CLAIMING),
    checkpointWithStatusClaiming: db.prepare(CHECKPOINT_WITH_STATUS_CLAIMING),
    appendEvent: db.prepare(APPEND_EVENT),
    linkEvent: db.prepare(LINK_EVENT),
    linkEventFenced: db.prepare(LINK_EVENT_FENCED),
    eventById: db.prepare<[number], EventRow>(EVENT_BY_ID),
    idempotentEvent: db.prepare<[string, string], EventRow>(IDEMPOTENT_EVENT),
    tailFrom: db.prepare<[number], EventRow>(TAIL_FROM),
    historyFrom: db.prepare<[number], EventRow>(HISTORY_FROM),
    upsertKey: db.prepare(UPSERT_KEY),
    deleteKey: db.prepare(DELETE_KEY),
    keySetOf: db.prepare<[string], { fingerprint: string }>(KEY_SET_OF),
    listByIndex: db.prepare<[string, string, number], RunRow>(LIST_BY_INDEX),
  };
}
