import type Database from 'better-sqlite3';
import { registerChecksum } from './sqlite-checksum.js';
import { sqliteCommit } from './sqlite-commit.js';
import { sqliteLeases } from './sqlite-leases.js';
import { damaged, openError, openSqlite, storeError } from './sqlite-open.js';
import { DEFAULT_SQLITE_PATH } from './sqlite-path.js';
import { prepareSchema } from './sqlite-schema.js';
import { endAt, RunEnds, type RunEnd } from './run-ends.js';
import { reindexing } from './run-keys.js';
import { sqliteReads } from './run-reads.js';
import { countRuns, listRuns, pageRuns, prepareStatements } from './statements.js';
import type { RunRow } from './sqlite-rows.js';
import {
  countsOf,
  type EventRecord,
  type RunCursor,
  type RunFilter,
  type RunGroup,
  type RunPage,
  type RunPageQuery,
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

const cursorOf = (run: StoredRun): RunCursor => ({ createdAt: run.createdAt, runId: run.runId });

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
    readOnly
      ? new StoreReadOnlyError(path)
      : openedWhileFull
        ? new StoreFullError(path, {
            refused:
              'the store was opened while the disk was full, so it only reads and the commit was refused; open it again once there is space',
          })
        : undefined;
  try {
    const cannotConvert = (stored: number): never => {
      if (openedWhileFull)
        throw new StoreFullError(path, {
          refused: `converting its schema version ${stored} to this statewright's needs space, so it was not opened for writing`,
        });
      throw new StoreOpenError(
        'sqlite',
        path,
        `it has schema version ${stored}, which a read-only open cannot convert`,
        'Open it once for writing (any command that writes, or sqliteStore(path)) to convert it.',
      );
    };
    prepareSchema(db, path, readOnly || openedWhileFull ? cannotConvert : undefined);
    return sqliteConnection(db, path, cannotWrite);
  } catch (error) {
    db.close();
    throw openError(path, error);
  }
}

/**
 * The store over an open, prepared file: its statements (statements.ts), the ends of runs it
 * remembers (run-ends.ts), its checked reads (run-reads.ts) and its commit (sqlite-commit.ts).
 */
function sqliteConnection(db: Database.Database, path: string, cannotWrite: () => Error | undefined): Store {
  registerChecksum(db);
  const statements = prepareStatements(db);
  const ends = new RunEnds();
  const reads = sqliteReads(statements, path, ends);
  const commitAll = sqliteCommit(db, statements, reads, ends);
  const reindex = reindexing(db, statements, reads.current);

  /** The statements built from a filter (pages, counts), prepared once each. */
  const preparedByText = new Map<string, Database.Statement>();
  const prepared = (sql: string): Database.Statement => {
    let statement = preparedByText.get(sql);
    if (!statement) preparedByText.set(sql, (statement = db.prepare(sql)));
    return statement;
  };

  /**
   * A page of runs: one walk of an index when no state is asked for (`limit + 1` rows, the last only
   * telling whether more follow). A state may lag in `runs`, so with one the walk goes on in batches,
   * each row's current state read as a load reads it, until the page is full or the runs run out.
   */
  function listPage(query: RunPageQuery): RunPage {
    const batch = query.state === undefined ? query.limit + 1 : Math.max(query.limit + 1, 100);
    const runs: StoredRun[] = [];
    let after = query.after;
    for (;;) {
      const { sql, params } = pageRuns(query, after !== undefined);
      const cursor = after ? [after.createdAt, after.runId] : [];
      const rows = prepared(sql).all(...params, ...cursor, batch) as RunRow[];
      let scanned: StoredRun | undefined;
      for (const row of rows) {
        const run = (scanned = reads.current(row));
        if (query.state !== undefined && run.state !== query.state) continue;
        if (runs.length === query.limit) return { runs, next: cursorOf(runs.at(-1)!) };
        runs.push(run);
      }
      if (rows.length < batch || !scanned) return { runs, next: null };
      after = cursorOf(scanned);
    }
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
        ends.committed(moved);
      });
    },
    load(runId) {
      return guarded(() => {
        const row = reads.findRun(runId);
        if (!row) return undefined;
        reads.checkRun(row);
        const tail = reads.tailOf(row);
        ends.read(row, tail);
        return reads.runOf(row, tail);
      });
    },
    list(filter: RunFilter = {}) {
      return guarded(() => {
        const { sql, params } = listRuns(filter);
        const runs = (db.prepare(sql).all(...params) as RunRow[]).map(reads.current);
        return filter.state === undefined ? runs : runs.filter((run) => run.state === filter.state);
      });
    },
    listPage(query) {
      return guarded(() => listPage(query));
    },
    countByState(filter: RunFilter = {}) {
      return guarded(() => {
        const { sql, params } = countRuns(filter);
        const groups = prepared(sql).all(...params) as RunGroup[];
        return countsOf(filter.state === undefined ? groups : groups.filter((group) => group.state === filter.state));
      });
    },
    history(runId) {
      return guarded(() =>
        reads.historyOf(runId).map(
          (row): EventRecord => ({
            runId: row.run_id,
            seq: row.seq,
            event: reads.parse<EventRecord['event']>(runId, `event ${row.seq}`, row.event),
            at: row.at,
            before: row.before_state,
            after: row.after_state,
            ...(row.actor !== null && { actor: row.actor }),
            ...(row.reason !== null && { reason: row.reason }),
            ...(row.credential !== null && { credential: row.credential }),
            ...(row.idempotency_key !== null && { idempotencyKey: row.idempotency_key }),
          }),
        ),
      );
    },
    findIdempotent(runId, key) {
      return guarded(() => {
        const row = statements.idempotentEvent.get(runId, key);
        if (!row) return undefined;
        reads.checkEvent(row, runId);
        if (row.idempotency_key !== key)
          throw damaged(
            path,
            `run ${runId}: the index of idempotency keys leads key ${key} to event ${row.seq}, which has another`,
          );
        return {
          seq: row.seq,
          result: row.result === null ? undefined : reads.parse(runId, `result of event ${row.seq}`, row.result),
        };
      });
    },
    syncIndex(machine, fingerprint, keysOf) {
      return guarded(() => {
        // Up to date (the usual case) is found without a write, so a read-only store can be synced.
        if (statements.keySetOf.get(machine)?.fingerprint === fingerprint) return 0;
        const refused = cannotWrite();
        if (refused) throw refused;
        // IMMEDIATE: no other writer commits to these runs between reading them and keying them.
        return reindex.immediate(machine, fingerprint, keysOf);
      });
    },
    listByIndex(machine, key, options = {}) {
      return guarded((): StoredRun[] =>
        statements.listByIndex.all(machine, key, options.limit ?? -1).map(reads.current),
      );
    },
    leases: sqliteLeases(db, {
      findRun: reads.findRun,
      claimed: (row) => {
        const tail = reads.tailOf(row);
        const run = reads.runOf(row, tail);
        ends.claimed(row.run_id, endAt(row, tail));
        return run;
      },
      forget: (runId) => ends.forget(runId),
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
        return found
          .map((row) => row.integrity_check)
          .filter((problem) => problem !== 'ok')
          .map((problem) => `${path}: ${problem}`);
      });
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
