import pg from 'pg';
import { commitSteps, type CommitTarget } from './postgres-commit.js';
import { backendsOf } from './postgres-commit-outcome.js';
import { isConnectionLoss } from './postgres-connection-loss.js';
import { KeptConnection } from './kept-connection.js';
import { postgresLeases } from './postgres-leases.js';
import { toEvent, toRun, type EventRow, type RunRow } from './postgres-rows.js';
import { ensureSchema } from './postgres-schema.js';
import { countRuns, idempotentEvent, listRuns, loadRun, pageRuns, runHistory } from './statements.js';
import { countsOf, type RunFilter, type RunGroup, type Store } from '../store.js';
import { StoreClosedError, StoreOpenError, StoreUnavailableError } from '../store-errors.js';

export interface PostgresStoreOptions {
  /** A libpq connection string; default `DATABASE_URL`, else the PG* variables, else localhost. */
  connectionString?: string;
  /** The schema holding the tables (created if missing); default `statewright`. */
  schema?: string;
  /** Connections kept open (default 4). */
  poolSize?: number;
  /**
   * How long a commit whose connection was lost after it was sent keeps asking the server
   * (reconnecting with backoff) whether it committed, before it is refused with
   * `CommitOutcomeUnknownError`; default 30 000 ms.
   */
  commitOutcomeTimeoutMs?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Postgres, for runs shared by several hosts. A batch of commits is one statement whatever its size
 * (one round trip and its own transaction; see postgres-commit.ts): the new runs inserted, the
 * existing ones updated only where their seq is still the one the writer saw and, for a writer with
 * a lease, where it still holds the lease (a concurrent writer's UPDATE waits for the row lock and
 * then finds the seq moved on, so exactly one wins), and the events appended. Leases and the timer
 * index: postgres-leases.ts.
 *
 * Lost connections: if the connection breaks under a commit, the store makes sure the backend that
 * ran it has ended, then looks for the rows it wrote by the commit's own id (see
 * postgres-commit-outcome.ts), and answers only then: acknowledged exactly when committed,
 * `StoreUnavailableError` (retrying is safe) when not, or `CommitOutcomeUnknownError` if the
 * server cannot say in time.
 */
export async function postgresStore(options: PostgresStoreOptions = {}): Promise<Store> {
  const schema = options.schema ?? 'statewright';
  if (!IDENTIFIER.test(schema))
    throw new Error(`Invalid Postgres schema name '${schema}': use lower-case letters, digits and underscores.`);
  const connectionString = options.connectionString ?? process.env.DATABASE_URL;
  const poolSize = options.poolSize ?? 4;
  // Idle connections stay open (no idle timeout): the pool would otherwise arm a timer at every
  // release, one per commit, a measurable share of a lone run's time per event.
  const pool = new pg.Pool({ ...(connectionString && { connectionString }), max: poolSize, idleTimeoutMillis: 0 });
  // A client that loses its connection emits 'error', idle (the pool's 'error') or checked out (its
  // own): neither may take the process down. A checked-out client's query fails too, and that
  // failure is what the store answers with; the pool then drops the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const location = `schema '${schema}'`;
  const outcomeTimeoutMs = options.commitOutcomeTimeoutMs ?? 30_000;
  try {
    await ensureSchema(pool, schema);
  } catch (error) {
    await pool.end();
    throw new StoreOpenError(
      'postgres',
      `schema '${schema}'`,
      (error as Error).message,
      'Check DATABASE_URL or the PG* variables and that the server is up.',
    );
  }

  let closed = false;
  const assertOpen = () => {
    if (closed) throw new StoreClosedError('postgres', `schema ${schema}`);
  };

  const kept = new KeptConnection(pool, poolSize > 1);
  /** A pooled connection, the kept one when it is free; one that cannot be had is `StoreUnavailableError` (nothing was sent). */
  function connect(): pg.PoolClient | Promise<pg.PoolClient> {
    const taking = kept.take();
    if (!(taking instanceof Promise)) return taking;
    return taking.catch((error: Error) => {
      assertOpen();
      throw new StoreUnavailableError('postgres', location, error.message);
    });
  }

  /**
   * Every statement is prepared once on each connection, named by its text (the texts are fixed
   * but for the schema and, in `list`, the filter): planning a claim's CTE took longer than running it.
   */
  const statementNames = new Map<string, string>();
  const prepared = (text: string, values: unknown[]) => {
    let name = statementNames.get(text);
    if (name === undefined) statementNames.set(text, (name = `statewright ${statementNames.size}`));
    return { name, text, values };
  };

  /** A read on any pooled connection; a lost connection is `StoreUnavailableError`. */
  async function read<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    assertOpen();
    try {
      return (await pool.query<R>(prepared(sql, params))).rows;
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      throw new StoreUnavailableError('postgres', location, (error as Error).message);
    }
  }

  const target: CommitTarget = {
    pool,
    schema,
    location,
    timeoutMs: outcomeTimeoutMs,
    closed: () => closed,
    connect,
    release: (client, error) => kept.give(client, error),
    read,
    backendOf: backendsOf(),
  };

  return {
    kind: 'postgres',
    // Each batch on a connection of its own; one is left for the lease heartbeat, claims and reads.
    commitsAtOnce: Math.max(1, poolSize - 1),
    // Not async: a lone run commits at every event, and each promise layer is a hop of its own.
    commit(commits) {
      if (closed) return Promise.reject(new StoreClosedError('postgres', `schema ${schema}`));
      return commitSteps(target, commits);
    },
    leases: postgresLeases(schema, read),
    async load(runId) {
      const rows = await read<RunRow>(loadRun(schema), [runId]);
      return rows[0] && toRun(rows[0]);
    },
    async list(filter: RunFilter = {}) {
      const { text, params } = listRuns(schema, filter);
      const rows = await read<RunRow>(text, params);
      return rows.map(toRun);
    },
    async listPage(query) {
      const { text, params } = pageRuns(schema, { ...query, limit: query.limit + 1 });
      const rows = await read<RunRow>(text, params);
      const runs = rows.slice(0, query.limit).map(toRun);
      const last = runs.at(-1);
      return {
        runs,
        next: rows.length > query.limit && last ? { createdAt: last.createdAt, runId: last.runId } : null,
      };
    },
    async countByState(filter: RunFilter = {}) {
      const { text, params } = countRuns(schema, filter);
      return countsOf(await read<RunGroup>(text, params));
    },
    async history(runId) {
      const rows = await read<EventRow>(runHistory(schema), [runId]);
      return rows.map(toEvent);
    },
    async findIdempotent(runId, key) {
      const rows = await read<{ seq: number; result: unknown }>(idempotentEvent(schema), [runId, key]);
      return rows[0] && { seq: rows[0].seq, result: rows[0].result ?? undefined };
    },
    async close() {
      if (closed) return;
      closed = true;
      kept.close();
      await pool.end();
    },
  };
}
