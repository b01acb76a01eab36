import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { HISTORY_FROM, prepareSchema, TAIL_FROM } from './sqlite-schema.js';
import { CommitConflictError, type Commit, type EventRecord, type OwnerInfo, type RunFilter, type Store, type StoredRun } from './store.js';
import { StoreClosedError, StoreCorruptionError, StoreOpenError } from './store-errors.js';

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
 * How many commits a run's row in `runs` may lag behind its log before a commit brings it up to
 * date (its status and version never lag). Reading a run follows at most this many links.
 */
const CHECKPOINT_EVERY = 32;

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
  last_event: number | null;
}

interface EventRow {
  id: number;
  run_id: string;
  seq: number;
  next: number | null;
  event: string;
  at: number;
  actor: string | null;
  reason: string | null;
  idempotency_key: string | null;
  before_state: string;
  after_state: string;
  row_state: string | null;
  row_snapshot: string | null;
  row_updated_at: number | null;
}

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
  let db: Database.Database;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
  } catch (error) {
    throw new StoreOpenError('sqlite', path, (error as Error).message, 'Pick a file in a folder this process can create and write (--store sqlite:<file>).');
  }
  try {
    if (options.pageSize) db.pragma(`page_size = ${options.pageSize}`);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    prepareSchema(db, path);
  } catch (error) {
    db.close();
    throw corruption(path, error);
  }

  const insertRun = db.prepare(
    `INSERT INTO runs (run_id, machine, version, status, state, seq, snapshot, input, owner, created_at, updated_at, last_event)
     VALUES (@run_id, @machine, @version, @status, @state, @seq, @snapshot, @input, @owner, @created_at, @updated_at, @last_event)
     ON CONFLICT (run_id) DO NOTHING`,
  );
  const checkpoint = db.prepare(
    `UPDATE runs SET version = ?, status = ?, state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = ? WHERE run_id = ?`,
  );
  // Leaving status and version out of the SET list when they stay keeps SQLite from rewriting the two status indexes.
  const checkpointInPlace = db.prepare(`UPDATE runs SET state = ?, seq = ?, snapshot = ?, owner = ?, updated_at = ?, last_event = ? WHERE run_id = ?`);
  const appendEvent = db.prepare(
    `INSERT INTO events (run_id, seq, prev, event, at, actor, reason, idempotency_key, before_state, after_state, result,
       row_state, row_snapshot, row_updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The event before no longer ends the run: it points on, and its copy of the row is not needed.
  const link = db.prepare('UPDATE events SET next = ?, row_snapshot = NULL WHERE id = ? AND next IS NULL');
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
      const keys = keysOf(current(row));
      for (const key in keys) if (keys[key] !== null && keys[key] !== undefined) upsertKey.run(row.run_id, key, machine, keys[key]);
      count++;
    }
    db.prepare('INSERT INTO run_key_sets (machine, fingerprint) VALUES (?, ?) ON CONFLICT (machine) DO UPDATE SET fingerprint = excluded.fingerprint').run(machine, fingerprint);
    return count;
  });
  const loadRun = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE run_id = ?');
  const tailFrom = db.prepare<[number], EventRow>(TAIL_FROM);
  const eventById = db.prepare<[number], EventRow>('SELECT * FROM events WHERE id = ?');
  const historyFrom = db.prepare<[number], EventRow>(HISTORY_FROM);
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

  /** The ends of the live runs this store committed to, so the next commit need not look them up. */
  const ends = new Map<string, RunEnd>();

  /** Where `runId` ends, read from the file: its row, then on along `next`. */
  function endOf(runId: string): RunEnd | undefined {
    const row = loadRun.get(runId);
    if (!row) return undefined;
    const tail = tailOf(row);
    const moved = tail !== undefined && tail.id !== row.last_event;
    return { seq: moved ? tail.seq : row.seq, event: tail?.id ?? null, checkpointSeq: row.seq, status: row.status, version: row.version, owner: row.owner };
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
    for (const { run, event, result, expectedSeq, keys } of commits) {
      const runId = run.runId;
      const snapshot = JSON.stringify(run.snapshot);
      const owner = ownerJson(run.owner);
      let end: RunEnd | undefined;
      if (expectedSeq === undefined) {
        const created = insertRun.run({
          run_id: runId,
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
          last_event: null,
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
        const known = moved.get(runId) ?? ends.get(runId);
        end = event && known?.seq === expectedSeq && known.event !== null ? known : endOf(runId);
        if (end?.seq !== expectedSeq) {
          conflict(runId, expectedSeq);
          continue;
        }
      }
      let eventId: number | null = null;
      if (event) {
        try {
          eventId = Number(
            appendEvent.run(
              runId,
              event.seq,
              end.event,
              JSON.stringify(event.event),
              event.at,
              event.actor ?? null,
              event.reason ?? null,
              event.idempotencyKey ?? null,
              event.before,
              event.after,
              result === undefined ? null : JSON.stringify(result),
              run.state,
              snapshot,
              run.updatedAt,
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
      // from it), when its status, version or owner changes, or when it lags too far.
      let checkpointSeq = end.checkpointSeq;
      if (end.event === null || eventId === null || run.status !== end.status || run.version !== end.version || owner !== end.owner || run.seq - end.checkpointSeq >= CHECKPOINT_EVERY) {
        const lastEvent = eventId ?? end.event;
        if (run.status === end.status && run.version === end.version) checkpointInPlace.run(run.state, run.seq, snapshot, owner, run.updatedAt, lastEvent, runId);
        else checkpoint.run(run.version, run.status, run.state, run.seq, snapshot, owner, run.updatedAt, lastEvent, runId);
        checkpointSeq = run.seq;
      }
      moved.set(runId, { seq: run.seq, event: eventId ?? end.event, checkpointSeq, status: run.status, version: run.version, owner });
      writeKeys(run, keys);
    }
    // Throwing inside the transaction rolls every statement of the batch back.
    if (conflicts.length) throw new CommitConflictError(conflicts);
  });

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
   */
  function tailOf(row: RunRow): EventRow | undefined {
    const start = ends.get(row.run_id)?.event ?? row.last_event;
    if (start === null) return undefined;
    const event = eventById.get(start);
    return event && event.next !== null ? tailFrom.get(event.next) : event;
  }

  /** A run as it is now: its `runs` row, or, when its log has moved on, the row its newest event holds. */
  function current(row: RunRow): StoredRun {
    const tail = tailOf(row);
    if (!tail || tail.id === row.last_event) return toRun(row);
    return {
      runId: row.run_id,
      machine: row.machine,
      version: row.version,
      status: row.status,
      state: tail.row_state!,
      seq: tail.seq,
      snapshot: JSON.parse(tail.row_snapshot!),
      input: JSON.parse(row.input),
      owner: row.owner ? JSON.parse(row.owner) : undefined,
      createdAt: row.created_at,
      updatedAt: tail.row_updated_at!,
    };
  }

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
        const moved = new Map<string, RunEnd>();
        commitAll.immediate(commits, moved);
        // A run that has ended takes no more events: forget it, so the map holds live runs only.
        for (const [runId, end] of moved) {
          if (end.status === 'active') ends.set(runId, end);
          else ends.delete(runId);
        }
      });
    },
    load(runId) {
      return guarded(() => {
        const row = loadRun.get(runId);
        return row && current(row);
      });
    },
    list(filter: RunFilter = {}) {
      return guarded(() => listRuns(filter));
    },
    history(runId) {
      return guarded(() => {
        const end = endOf(runId)?.event;
        return (end === null || end === undefined ? [] : historyFrom.all(end)).map(
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
        );
      });
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
      return guarded(() => byIndex.all(machine, key, options.limit ?? -1).map(current));
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
    const sql = `SELECT * FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, run_id`;
    const runs = (db.prepare(sql).all(...params) as RunRow[]).map(current);
    return filter.state === undefined ? runs : runs.filter((run) => run.state === filter.state);
  }
}

/** SQLite's "not a database" and "malformed" (with its extended codes) as an error that names the file. */
function corruption(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !(code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))) return error;
  return new StoreCorruptionError(path, `SQLite says "${(error as Error).message}" (${code})`, 'Restore the file from a backup, or move it aside (with its -wal and -shm files) to start an empty store.');
}
