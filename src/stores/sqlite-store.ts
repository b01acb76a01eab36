import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { CommitConflictError, type Commit, type EventRecord, type OwnerInfo, type RunFilter, type Store, type StoredRun } from './store.js';
import { StoreClosedError, StoreCorruptionError } from './store-errors.js';

export interface SqliteStoreOptions {
  /** SQLite's `synchronous` pragma. FULL (the default) makes every commit survive power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long to wait for another process's write lock before failing (ms, default 5000). */
  busyTimeoutMs?: number;
  /** Page size of a new database file (bytes). */
  pageSize?: number;
}

/** Where the embedded default store lives, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = '.statewright/state.db';

/**
 * 2 added `run_keys` and `run_key_sets`; a version 1 file is upgraded in place (`syncIndex` keys its runs).
 * 3 made `events` an append-only log (see `EVENTS_TABLE`); older files are converted on open.
 */
const SCHEMA_VERSION = 3;

/**
 * The audit trail, in commit order. A rowid table: every commit appends at its end, so a group
 * commit of 100 runs writes a few pages, where a table keyed by (run, seq) would rewrite each run's
 * own page, 100 pages per transaction. A run's events are found through `runs.last_event` and each
 * event's `prev`, the run's event before it; seqs cannot repeat, as every commit also moves the
 * run's row on from the seq it expected.
 */
const EVENTS_TABLE = (name: string) => `
CREATE TABLE ${name} (
  id              INTEGER PRIMARY KEY,
  run_id          TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  prev            INTEGER,
  event           TEXT NOT NULL,
  at              INTEGER NOT NULL,
  actor           TEXT,
  reason          TEXT,
  idempotency_key TEXT,
  before_state    TEXT NOT NULL,
  after_state     TEXT NOT NULL,
  result          TEXT
)`;
const IDEMPOTENCY_INDEX = 'CREATE UNIQUE INDEX IF NOT EXISTS events_by_idempotency_key ON events (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL';

const SCHEMA = `
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
  last_event INTEGER
);
CREATE INDEX IF NOT EXISTS runs_by_machine_status ON runs (machine, status, created_at);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status, created_at);
${EVENTS_TABLE('IF NOT EXISTS events')};
${IDEMPOTENCY_INDEX};
-- Index keys that lifecycles derive from their snapshots (Commit.keys): one row per run and key
-- it is listed under, written in the same transaction as the run's row. A query by key walks
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
 * Converts a version 1 or 2 file, whose events table was keyed by (run_id, seq), to the
 * append-only log: the events are copied run by run in seq order, so a run's previous event is
 * the row just before it, and each run points at its last one. One transaction: a crash leaves
 * the old file as it was.
 */
const UPGRADE_EVENTS_TO_LOG = `
ALTER TABLE runs ADD COLUMN last_event INTEGER;
${EVENTS_TABLE('events_log')};
INSERT INTO events_log (run_id, seq, event, at, actor, reason, idempotency_key, before_state, after_state, result)
  SELECT run_id, seq, event, at, actor, reason, idempotency_key, before_state, after_state, result FROM events ORDER BY run_id, seq;
UPDATE events_log SET prev = id - 1
  WHERE EXISTS (SELECT 1 FROM events_log AS earlier WHERE earlier.id = events_log.id - 1 AND earlier.run_id = events_log.run_id);
UPDATE runs SET last_event = latest.id
  FROM (SELECT run_id, max(id) AS id FROM events_log GROUP BY run_id) AS latest WHERE latest.run_id = runs.run_id;
DROP TABLE events;
ALTER TABLE events_log RENAME TO events;
${IDEMPOTENCY_INDEX};
`;

/** A run's events in seq order: its last event, then each one's `prev`, back to the first. */
const HISTORY_QUERY = `
WITH RECURSIVE chain(id) AS (
  SELECT last_event FROM runs WHERE run_id = ?
  UNION ALL
  SELECT e.prev FROM events AS e JOIN chain ON e.id = chain.id WHERE e.prev IS NOT NULL
)
SELECT e.* FROM chain JOIN events AS e ON e.id = chain.id ORDER BY e.seq`;

/** What `listByIndex` runs (exported so a test can hold its query plan to the index). */
export const SQLITE_INDEX_QUERY = `SELECT r.* FROM run_keys k JOIN runs r ON r.run_id = k.run_id
  WHERE k.machine = ? AND k.key = ? ORDER BY k.sort, k.run_id LIMIT ?`;

interface RunRow {
  run_id: string;
  machine: string;
  version: number;
  status: string;
  state: string;
  seq: number;
  snapshot: string;
  input: string;
  owner: string | null;
  created_at: number;
  updated_at: number;
}

interface EventRow {
  run_id: string;
  seq: number;
  event: string;
  at: number;
  actor: string | null;
  reason: string | null;
  idempotency_key: string | null;
  before_state: string;
  after_state: string;
}

/**
 * The embedded default store: one SQLite file in WAL mode. A batch of commits is one transaction;
 * each run row is updated only if its seq is still the one the writer saw (optimistic
 * concurrency), so several processes can share one file and a stale writer is refused.
 */
export function sqliteStore(path: string = DEFAULT_SQLITE_PATH, options: SqliteStoreOptions = {}): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    if (options.pageSize) db.pragma(`page_size = ${options.pageSize}`);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    const stored = db.pragma('user_version', { simple: true }) as number;
    if (stored > SCHEMA_VERSION) {
      throw new Error(`The store at ${path} has schema version ${stored}, newer than this statewright (${SCHEMA_VERSION}). Upgrade statewright to open it.`);
    }
    // IMMEDIATE: two processes opening an old file at once upgrade it once.
    db.transaction(() => {
      db.exec(SCHEMA);
      const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')").all();
      if (!columns.some((c) => c.name === 'prev')) db.exec(UPGRADE_EVENTS_TO_LOG);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  } catch (error) {
    db.close();
    throw corruption(path, error);
  }

  const insertRun = db.prepare(
    `INSERT INTO runs (run_id, machine, version, status, state, seq, snapshot, input, owner, created_at, updated_at, last_event)
     VALUES (@run_id, @machine, @version, @status, @state, @seq, @snapshot, @input, @owner, @created_at, @updated_at, @last_event)
     ON CONFLICT (run_id) DO NOTHING`,
  );
  const updateRun = db.prepare(
    `UPDATE runs SET version = ?, status = ?, state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = coalesce(?, last_event)
     WHERE run_id = ? AND seq = ?`,
  );
  // The usual step keeps its status and version: leaving them out of the SET list keeps SQLite
  // from rewriting the two indexes on status, so a commit writes two pages, not four.
  const updateRunInPlace = db.prepare(
    `UPDATE runs SET state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = coalesce(?, last_event)
     WHERE run_id = ? AND seq = ? AND status = ? AND version = ?`,
  );
  // Appended before its run's row is moved on, which then points at it. `prev` is the run's last
  // event: looked up, or remembered from this store's own last commit to the run at that seq (if
  // another writer committed since, the run's seq moved on and the whole batch is refused).
  const insertEvent = db.prepare(
    `INSERT INTO events (run_id, seq, prev, event, at, actor, reason, idempotency_key, before_state, after_state, result)
     VALUES (?, ?, coalesce(?, (SELECT last_event FROM runs WHERE run_id = ?)), ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const lastEvents = new Map<string, { seq: number; id: number | bigint }>();
  const upsertKey = db.prepare(
    `INSERT INTO run_keys (run_id, key, machine, sort) VALUES (?, ?, ?, ?)
     ON CONFLICT (run_id, key) DO UPDATE SET sort = excluded.sort WHERE sort IS NOT excluded.sort`,
  );
  const deleteKey = db.prepare('DELETE FROM run_keys WHERE run_id = ? AND key = ?');
  const byIndex = db.prepare<[string, string, number], RunRow>(SQLITE_INDEX_QUERY);
  const keySetOf = db.prepare<[string], { fingerprint: string }>('SELECT fingerprint FROM run_key_sets WHERE machine = ?');
  const runsOf = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE machine = ?');
  const reindex = db.transaction((machine: string, fingerprint: string, keysOf: (run: StoredRun) => Readonly<Record<string, number | null>>) => {
    if (keySetOf.get(machine)?.fingerprint === fingerprint) return 0;
    db.prepare('DELETE FROM run_keys WHERE machine = ?').run(machine);
    let count = 0;
    for (const row of runsOf.all(machine)) {
      const keys = keysOf(toRun(row));
      for (const key in keys) if (keys[key] !== null && keys[key] !== undefined) upsertKey.run(row.run_id, key, machine, keys[key]);
      count++;
    }
    db.prepare('INSERT INTO run_key_sets (machine, fingerprint) VALUES (?, ?) ON CONFLICT (machine) DO UPDATE SET fingerprint = excluded.fingerprint').run(machine, fingerprint);
    return count;
  });
  const seqOf = db.prepare<[string], { seq: number }>('SELECT seq FROM runs WHERE run_id = ?');
  const loadRun = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE run_id = ?');
  const historyOf = db.prepare<[string], EventRow>(HISTORY_QUERY);
  const idempotent = db.prepare<[string, string], { seq: number; result: string | null }>(
    'SELECT seq, result FROM events WHERE run_id = ? AND idempotency_key = ?',
  );

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

  /** (runId, seq, event id) triples of the transaction under way, remembered once it commits. */
  const committedEvents: Array<string | number | bigint> = [];
  const commitAll = db.transaction((commits: readonly Commit[]) => {
    committedEvents.length = 0;
    const conflicts: Array<{ runId: string; expectedSeq: number | undefined; storedSeq: number | undefined }> = [];
    for (const { run, event, result, expectedSeq, keys } of commits) {
      const snapshot = JSON.stringify(run.snapshot);
      const owner = ownerJson(run.owner);
      let eventId: number | bigint | null = null;
      if (event) {
        try {
          const known = lastEvents.get(run.runId);
          eventId = insertEvent.run(
            run.runId,
            event.seq,
            known !== undefined && known.seq === expectedSeq ? known.id : null,
            run.runId,
            JSON.stringify(event.event),
            event.at,
            event.actor ?? null,
            event.reason ?? null,
            event.idempotencyKey ?? null,
            event.before,
            event.after,
            result === undefined ? null : JSON.stringify(result),
          ).lastInsertRowid;
        } catch (error) {
          // A repeated idempotency key from a writer whose seq is stale is that writer's conflict.
          const storedSeq = seqOf.get(run.runId)?.seq;
          if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE' || storedSeq === expectedSeq) throw error;
          conflicts.push({ runId: run.runId, expectedSeq, storedSeq });
          continue;
        }
      }
      const changed =
        expectedSeq === undefined
          ? insertRun.run({
              run_id: run.runId,
              machine: run.machine,
              version: run.version,
              status: run.status,
              state: run.state,
              seq: run.seq,
              snapshot,
              input: JSON.stringify(run.input ?? null),
              owner,
              created_at: run.createdAt,
              updated_at: run.updatedAt,
              last_event: eventId,
            }).changes
          : updateRunInPlace.run(run.state, run.seq, snapshot, owner, run.updatedAt, eventId, run.runId, expectedSeq, run.status, run.version).changes ||
            updateRun.run(run.version, run.status, run.state, run.seq, snapshot, owner, run.updatedAt, eventId, run.runId, expectedSeq).changes;
      if (changed !== 1) {
        conflicts.push({ runId: run.runId, expectedSeq, storedSeq: seqOf.get(run.runId)?.seq });
        continue;
      }
      if (eventId !== null) committedEvents.push(run.runId, run.status === 'active' ? run.seq : -1, eventId);
      if (keys) {
        for (const key in keys) {
          const sort = keys[key];
          if (sort === null || sort === undefined) deleteKey.run(run.runId, key);
          else upsertKey.run(run.runId, key, run.machine, sort);
        }
      }
    }
    // Throwing inside the transaction rolls every statement of the batch back.
    if (conflicts.length) throw new CommitConflictError(conflicts);
  });

  const toRun = (row: RunRow): StoredRun => ({
    runId: row.run_id,
    machine: row.machine,
    version: row.version,
    status: row.status,
    state: row.state,
    seq: row.seq,
    snapshot: JSON.parse(row.snapshot),
    input: JSON.parse(row.input),
    owner: row.owner ? JSON.parse(row.owner) : undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

  /** Runs a statement; a damaged file gives an error naming it, a closed store StoreClosedError. */
  function guarded<T>(work: () => T): Promise<T> {
    if (!db.open) return Promise.reject(new StoreClosedError('sqlite', path));
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(corruption(path, error));
    }
  }

  return {
    kind: 'sqlite',
    commit(commits) {
      return guarded(() => {
        commitAll(commits);
        for (let i = 0; i < committedEvents.length; i += 3) {
          const runId = committedEvents[i] as string;
          const seq = committedEvents[i + 1] as number;
          // A run that has ended takes no more events: forget it, so the map holds live runs only.
          if (seq < 0) lastEvents.delete(runId);
          else lastEvents.set(runId, { seq, id: committedEvents[i + 2] as number | bigint });
        }
      });
    },
    load(runId) {
      return guarded(() => {
        const row = loadRun.get(runId);
        return row && toRun(row);
      });
    },
    list(filter: RunFilter = {}) {
      return guarded(() => listRuns(filter));
    },
    history(runId) {
      return guarded(() =>
        historyOf.all(runId).map(
          (row): EventRecord => ({
            runId: row.run_id,
            seq: row.seq,
            event: JSON.parse(row.event),
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
        return row && { seq: row.seq, result: row.result === null ? undefined : JSON.parse(row.result) };
      });
    },
    syncIndex(machine, fingerprint, keysOf) {
      // IMMEDIATE: no other writer commits to these runs between reading them and keying them.
      return guarded(() => reindex.immediate(machine, fingerprint, keysOf));
    },
    listByIndex(machine, key, options = {}) {
      return guarded(() => byIndex.all(machine, key, options.limit ?? -1).map(toRun));
    },
    async close() {
      if (db.open) db.close();
    },
  };

  function listRuns(filter: RunFilter): StoredRun[] {
    const where: string[] = [];
    const params: string[] = [];
    for (const [column, value] of [['machine', filter.machine], ['status', filter.status], ['state', filter.state]] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    const sql = `SELECT * FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, run_id`;
    return (db.prepare(sql).all(...params) as RunRow[]).map(toRun);
  }
}

/** SQLite's "not a database" and "malformed" (with its extended codes) as an error that names the file. */
function corruption(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !(code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))) return error;
  return new StoreCorruptionError(path, `SQLite says "${(error as Error).message}" (${code})`, 'Restore the file from a backup, or move it aside (with its -wal and -shm files) to start an empty store.');
}
