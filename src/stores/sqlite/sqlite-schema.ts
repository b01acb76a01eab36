import type Database from 'better-sqlite3';
import {
  EVENT_ROW_SUM,
  EVENT_SUM,
  LEASE_SUM,
  registerChecksum,
  RUN_CREATED_SUM,
  RUN_ROW_SUM,
  sqlSum,
} from './sqlite-checksum.js';
import { StoreFormatError } from '../store-errors.js';

/**
 * The SQLite store's tables, and the upgrades of files written by earlier versions.
 *
 * 2 added `run_keys` and `run_key_sets` (a version 1 file is keyed by `syncIndex`).
 * 3 made `events` an append-only log.
 * 4 made the log carry each run's current row (see `EVENTS_TABLE`).
 * 5 added a checksum to every run row, event and row copy (see sqlite-checksum.ts).
 * 6 added each run's lease and next deadline (`LEASE_COLUMNS`), and the indexes the sweep reads.
 * 7 found held leases through one index (`runs_held`), not two (see `HELD_IN_TWO_INDEXES`).
 * 8 added the indexes a page of runs walks, newest first (`PAGE_INDEXES`), the status ones in place of two without the run id.
 * 9 added each event's credential (`EventRecord.credential`: who sent it, by the credential it came with).
 */
export const SCHEMA_VERSION = 9;

/**
 * The audit trail, in commit order, and each run's current row.
 *
 * A rowid table: every commit appends at its end, so a group commit of 100 runs writes a few
 * pages, where a table keyed by (run, seq) would rewrite each run's own page, 100 per transaction.
 * A run's events are chained both ways (`prev`, `next`). The `row_*` columns hold what of the run's
 * row changes from step to step (state, snapshot, updated_at; seq is the event's) as this event left
 * it; the newest event of a run (the one with no `next`) holds its current row, and
 * appending links it to the new one in the same page. So one run's commit writes one page, like a
 * bare single-row insert, and the `runs` row is only brought up to date now and then (see
 * `CHECKPOINT_EVERY` in row-write.ts). Only the newest event keeps its `row_snapshot`: linking
 * clears the one before.
 */
const EVENTS_TABLE = (name: string) => `
CREATE TABLE ${name} (
  id              INTEGER PRIMARY KEY,
  run_id          TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  prev            INTEGER,
  next            INTEGER,
  event           TEXT NOT NULL,
  at              INTEGER NOT NULL,
  actor           TEXT,
  reason          TEXT,
  idempotency_key TEXT,
  before_state    TEXT NOT NULL,
  after_state     TEXT NOT NULL,
  result          TEXT,
  credential      TEXT,
  row_state       TEXT,
  row_snapshot    TEXT,
  row_updated_at  INTEGER,
  checksum        INTEGER,
  row_checksum    INTEGER
)`;
const IDEMPOTENCY_INDEX =
  'CREATE UNIQUE INDEX IF NOT EXISTS events_by_idempotency_key ON events (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL';

const SCHEMA = `
-- Each run: what never changes (machine, input, created_at) and a checkpoint of its row as of
-- event last_event. status, version and owner are always current (a commit that changes one of
-- them updates this row); state, seq, snapshot and updated_at may lag behind the log.
CREATE TABLE IF NOT EXISTS runs (
  run_id     TEXT PRIMARY KEY,
  machine    TEXT NOT NULL,
  version    INTEGER NOT NULL,
  status     TEXT NOT NULL,
  state      TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  snapshot   TEXT NOT NULL,
  input      TEXT NOT NULL,
  owner      TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_event INTEGER,
  created_checksum INTEGER,
  checksum   INTEGER,
  lease_holder   TEXT,
  lease_state    TEXT,
  lease_epoch    INTEGER,
  lease_expires  INTEGER,
  lease_renewed  INTEGER,
  wake_at        INTEGER,
  lease_checksum INTEGER
);
${EVENTS_TABLE('IF NOT EXISTS events')};
${IDEMPOTENCY_INDEX};
-- Index keys that lifecycles derive from their snapshots (Commit.keys): one row per run and key
-- it is listed under, written in the same transaction as the run's step. A query by key walks
-- run_keys_by_key in order and looks each run up by its primary key: no scan, no sort.
CREATE TABLE IF NOT EXISTS run_keys (
  run_id  TEXT NOT NULL,
  key     TEXT NOT NULL,
  machine TEXT NOT NULL,
  sort    REAL NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS run_keys_by_key ON run_keys (machine, key, sort, run_id);
-- Which declaration of a machine's keys run_keys holds (see syncIndex).
CREATE TABLE IF NOT EXISTS run_key_sets (
  machine     TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL
);
`;

/**
 * Version 1 or 2, whose events table was keyed by (run_id, seq), to the log: the events are copied
 * run by run in seq order, so a run's previous event is the row just before it, and each run points
 * at its last one (its row is current, so the copied events need no `row_*`).
 */
const EVENTS_TO_LOG = `
ALTER TABLE runs ADD COLUMN last_event INTEGER;
${EVENTS_TABLE('events_log')};
INSERT INTO events_log (run_id, seq, event, at, actor, reason, idempotency_key, before_state, after_state, result)
  SELECT run_id, seq, event, at, actor, reason, idempotency_key, before_state, after_state, result FROM events ORDER BY run_id, seq;
UPDATE events_log SET prev = id - 1
  WHERE EXISTS (SELECT 1 FROM events_log AS earlier WHERE earlier.id = events_log.id - 1 AND earlier.run_id = events_log.run_id);
UPDATE events_log SET next = id + 1
  WHERE EXISTS (SELECT 1 FROM events_log AS later WHERE later.id = events_log.id + 1 AND later.run_id = events_log.run_id);
UPDATE runs SET last_event = latest.id
  FROM (SELECT run_id, max(id) AS id FROM events_log GROUP BY run_id) AS latest WHERE latest.run_id = runs.run_id;
DROP TABLE events;
ALTER TABLE events_log RENAME TO events;
${IDEMPOTENCY_INDEX};
`;

/** Version 3 to 4: the forward links and the row columns; every run's row is current, so they stay empty. */
const LOG_WITH_ROWS = `
ALTER TABLE events ADD COLUMN next INTEGER;
ALTER TABLE events ADD COLUMN row_state TEXT;
ALTER TABLE events ADD COLUMN row_snapshot TEXT;
ALTER TABLE events ADD COLUMN row_updated_at INTEGER;
UPDATE events SET next = later.id
  FROM (SELECT id, prev FROM events WHERE prev IS NOT NULL) AS later WHERE later.prev = events.id;
`;

/** Version 4 to 5: the checksum columns (a version 1 or 2 file gets the events' from `EVENTS_TABLE`). */
const EVENT_SUM_COLUMNS = `
ALTER TABLE events ADD COLUMN checksum INTEGER;
ALTER TABLE events ADD COLUMN row_checksum INTEGER;
`;
const RUN_SUM_COLUMNS = `
ALTER TABLE runs ADD COLUMN created_checksum INTEGER;
ALTER TABLE runs ADD COLUMN checksum INTEGER;
`;

/**
 * Every row's checksums, computed from what it holds. A run's newest event first gets a copy of
 * the run's row where it has none (files from before version 4), since every newest event carries
 * one from version 5 on and a read takes one missing for damage.
 */
const FILL_CHECKSUMS = `
UPDATE events SET row_state = runs.state, row_snapshot = runs.snapshot, row_updated_at = runs.updated_at
  FROM runs WHERE runs.last_event = events.id AND events.next IS NULL AND events.row_snapshot IS NULL;
UPDATE runs SET created_checksum = ${sqlSum(RUN_CREATED_SUM)}, checksum = ${sqlSum(RUN_ROW_SUM)};
UPDATE events SET checksum = ${sqlSum(EVENT_SUM)},
  row_checksum = CASE WHEN row_snapshot IS NULL THEN NULL ELSE ${sqlSum(EVENT_ROW_SUM)} END;
`;

/**
 * Version 5 to 6: the lease (see `RunLease`; wall-clock ms) and the run's next deadline (`wake_at`,
 * the runtime's clock), with their own checksum (see `LEASE_SUM`).
 */
const LEASE_COLUMNS = `
ALTER TABLE runs ADD COLUMN lease_holder TEXT;
ALTER TABLE runs ADD COLUMN lease_state TEXT;
ALTER TABLE runs ADD COLUMN lease_epoch INTEGER;
ALTER TABLE runs ADD COLUMN lease_expires INTEGER;
ALTER TABLE runs ADD COLUMN lease_renewed INTEGER;
ALTER TABLE runs ADD COLUMN wake_at INTEGER;
ALTER TABLE runs ADD COLUMN lease_checksum INTEGER;
`;

/**
 * What the sweep (`claimDue`) and `holders` read, each a partial index over the few runs it is
 * about, so that on a store of a million sleeping runs each is an index read of the runs it returns.
 * The sweep's queries (`SWEEP_QUERIES` in statements.ts) name their index and repeat its WHERE
 * clause word for word: SQLite uses a partial index only for a query whose WHERE contains the
 * index's own terms.
 * - held leases by expiry, with their holder and owner: the expired ones are taken over, and
 *   `holders` and `takeFrom` read it whole (the held runs: those hosts have busy, not the sleeping
 *   ones). One index, so that a claim or a release writes one page of it;
 * - active runs nobody holds, by their next deadline: the timer index of hibernated runs. A held
 *   run's deadline is its holder's to keep, so the commits of a held run never touch this index;
 * - handed-over runs: adopted at the next sweep.
 */
export const LEASE_INDEXES = `
CREATE INDEX IF NOT EXISTS runs_held ON runs (lease_expires, lease_holder, owner) WHERE lease_state = 'held' AND status = 'active';
CREATE INDEX IF NOT EXISTS runs_asleep_by_wake ON runs (wake_at) WHERE lease_state IS NOT 'held' AND status = 'active' AND wake_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS runs_handed_over ON runs (run_id) WHERE lease_state = 'handedOver' AND status = 'active';
`;

/**
 * A run stored before leases has no lease and no known deadline: it is due at once (`wake_at` 0),
 * so the first host's sweep claims it (with no previous lease: the host decides about its owner
 * as a restart did), finds its real next deadline, and lets it sleep again.
 */
const WAKE_UNLEASED_RUNS = `UPDATE runs SET wake_at = 0 WHERE status = 'active' AND lease_state IS NULL`;
const FILL_LEASE_CHECKSUMS = `UPDATE runs SET lease_checksum = ${sqlSum(LEASE_SUM)}`;

/** Version 6 to 7: held leases by expiry and by holder were two indexes, which a claim or a release each wrote a page of. */
const HELD_IN_TWO_INDEXES = `
DROP INDEX IF EXISTS runs_held_by_expiry;
DROP INDEX IF EXISTS runs_held_by_holder;
`;

/**
 * What a page of runs (`listPage`, `PAGE_RUNS` in statements.ts) walks backwards, newest first: by
 * creation time then run id, for all runs, for one machine's, one status's, or both. A run's id,
 * machine and creation time never change, so only its creation writes the first two; a status
 * index is written when the run's status changes, as the two version 7 had (`runs_by_status`,
 * `runs_by_machine_status`, without the run id: `STATUS_INDEXES_WITHOUT_ID`).
 */
export const PAGE_INDEXES = `
CREATE INDEX IF NOT EXISTS runs_newest ON runs (created_at, run_id);
CREATE INDEX IF NOT EXISTS runs_newest_by_machine ON runs (machine, created_at, run_id);
CREATE INDEX IF NOT EXISTS runs_newest_by_status ON runs (status, created_at, run_id);
CREATE INDEX IF NOT EXISTS runs_newest_by_machine_status ON runs (machine, status, created_at, run_id);
`;

/** Version 7 to 8: the status indexes without the run id, which `PAGE_INDEXES` replaces. */
const STATUS_INDEXES_WITHOUT_ID = `
DROP INDEX IF EXISTS runs_by_machine_status;
DROP INDEX IF EXISTS runs_by_status;
`;

/**
 * Creates the tables of a new file, or upgrades an older one, in one IMMEDIATE transaction (two
 * processes opening an old file at once upgrade it once; a crash leaves it as it was). A file at
 * this version is only read: opening it writes nothing, so a store on a full disk can be read.
 * Refuses a file from a newer statewright, and calls `cannotWrite` (which throws) when the file
 * needs writing and this connection may not.
 */
export function prepareSchema(db: Database.Database, path: string, cannotWrite?: (stored: number) => never): void {
  const stored = db.pragma('user_version', { simple: true }) as number;
  if (stored === SCHEMA_VERSION) return;
  if (stored > SCHEMA_VERSION) {
    throw new StoreFormatError(path, stored, SCHEMA_VERSION);
  }
  if (cannotWrite) cannotWrite(stored);
  registerChecksum(db);
  db.transaction(() => {
    // Another process may have upgraded it since the version was read.
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    db.exec(SCHEMA);
    const columnsOf = (table: string) =>
      new Set(
        db
          .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
          .all(table)
          .map((c) => c.name),
      );
    const eventColumns = columnsOf('events');
    const runColumns = columnsOf('runs');
    if (!eventColumns.has('prev')) db.exec(EVENTS_TO_LOG);
    else {
      if (!eventColumns.has('next')) db.exec(LOG_WITH_ROWS);
      if (!eventColumns.has('checksum')) db.exec(EVENT_SUM_COLUMNS);
    }
    if (!runColumns.has('checksum')) db.exec(RUN_SUM_COLUMNS);
    // Only from before version 5: recomputing the sums of a checked file would hide its damage.
    if (version < 5) db.exec(FILL_CHECKSUMS);
    if (!runColumns.has('lease_state')) {
      db.exec(LEASE_COLUMNS);
      db.exec(WAKE_UNLEASED_RUNS);
    }
    // Version 9; a table made just now (from a version 1 or 2 file) has it already.
    if (!columnsOf('events').has('credential')) db.exec('ALTER TABLE events ADD COLUMN credential TEXT');
    db.exec(HELD_IN_TWO_INDEXES);
    db.exec(LEASE_INDEXES);
    db.exec(STATUS_INDEXES_WITHOUT_ID);
    db.exec(PAGE_INDEXES);
    // Only from before version 6, as the other sums: a version 6 file's leases have theirs.
    if (version < 6) db.exec(FILL_LEASE_CHECKSUMS);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
