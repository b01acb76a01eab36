import pg from 'pg';
import { CommitConflictError, type Commit, type EventRecord, type OwnerInfo, type RunFilter, type Store, type StoredRun } from './store.js';
import { setTimeout as delay } from 'node:timers/promises';
import { isConnectionLoss } from './postgres-connection-loss.js';
import { CommitOutcomeUnknownError, StoreClosedError, StoreOpenError, StoreUnavailableError } from './store-errors.js';

export interface PostgresStoreOptions {
  /** A libpq connection string; default `DATABASE_URL`, else the PG* variables, else localhost. */
  connectionString?: string;
  /** The schema holding the tables (created if missing); default `statewright`. */
  schema?: string;
  /** Connections kept open (default 4). */
  poolSize?: number;
  /**
   * How long a commit whose connection was lost after COMMIT was sent keeps asking the server
   * (reconnecting with backoff) whether it committed, before it is refused with
   * `CommitOutcomeUnknownError`; default 30 000 ms.
   */
  commitOutcomeTimeoutMs?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

interface RunRow {
  run_id: string;
  machine: string;
  version: number;
  status: string;
  state: string;
  seq: number;
  snapshot: unknown;
  input: unknown;
  owner: OwnerInfo | null;
  created_at: string;
  updated_at: string;
}

interface EventRow {
  run_id: string;
  seq: number;
  event: EventRecord['event'];
  at: string;
  actor: string | null;
  reason: string | null;
  idempotency_key: string | null;
  before_state: string;
  after_state: string;
}

const toRun = (row: RunRow): StoredRun => ({
  runId: row.run_id,
  machine: row.machine,
  version: row.version,
  status: row.status,
  state: row.state,
  seq: row.seq,
  snapshot: row.snapshot,
  input: row.input,
  owner: row.owner ?? undefined,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const toEvent = (row: EventRow): EventRecord => ({
  runId: row.run_id,
  seq: row.seq,
  event: row.event,
  at: Number(row.at),
  before: row.before_state,
  after: row.after_state,
  ...(row.actor !== null && { actor: row.actor }),
  ...(row.reason !== null && { reason: row.reason }),
  ...(row.idempotency_key !== null && { idempotencyKey: row.idempotency_key }),
});

/**
 * Postgres, for runs shared by several hosts. A batch of commits is one transaction of three
 * statements whatever its size: the new runs inserted, the existing ones updated only where their
 * seq is still the one the writer saw (a concurrent writer's UPDATE waits for the row lock and then
 * finds the seq moved on, so exactly one wins), and the events appended.
 *
 * Lost connections: a commit whose connection fails before COMMIT is sent was rolled back by the
 * server, and is refused with `StoreUnavailableError` (retrying is safe). If the reply to COMMIT is
 * lost, the store asks the server on a fresh connection what became of the transaction, by the id
 * it returned with the rows it wrote (`txid_status`), and answers only then: acknowledged
 * exactly when committed, or `CommitOutcomeUnknownError` if the server cannot say in time.
 */
export async function postgresStore(options: PostgresStoreOptions = {}): Promise<Store> {
  const schema = options.schema ?? 'statewright';
  if (!IDENTIFIER.test(schema)) throw new Error(`Invalid Postgres schema name '${schema}': use lower-case letters, digits and underscores.`);
  const connectionString = options.connectionString ?? process.env.DATABASE_URL;
  const pool = new pg.Pool({ ...(connectionString && { connectionString }), max: options.poolSize ?? 4 });
  // A client that loses its connection emits 'error', idle (the pool's 'error') or checked out (its
  // own): neither may take the process down. A checked-out client's query fails too, and that
  // failure is what the store answers with; the pool then drops the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const location = `schema '${schema}'`;
  const outcomeTimeoutMs = options.commitOutcomeTimeoutMs ?? 30_000;
  try {
    await pool.query(`
      CREATE SCHEMA IF NOT EXISTS ${schema};
      CREATE TABLE IF NOT EXISTS ${schema}.runs (
        run_id text PRIMARY KEY, machine text NOT NULL, version integer NOT NULL, status text NOT NULL,
        state text NOT NULL, seq integer NOT NULL, snapshot jsonb NOT NULL, input jsonb NOT NULL,
        owner jsonb, created_at bigint NOT NULL, updated_at bigint NOT NULL);
      CREATE INDEX IF NOT EXISTS runs_by_machine_status ON ${schema}.runs (machine, status, created_at);
      CREATE INDEX IF NOT EXISTS runs_by_status ON ${schema}.runs (status, created_at);
      CREATE TABLE IF NOT EXISTS ${schema}.events (
        run_id text NOT NULL, seq integer NOT NULL, event jsonb NOT NULL, at bigint NOT NULL,
        actor text, reason text, idempotency_key text, before_state text NOT NULL, after_state text NOT NULL,
        result jsonb, PRIMARY KEY (run_id, seq));
      CREATE UNIQUE INDEX IF NOT EXISTS events_by_idempotency_key ON ${schema}.events (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    `);
  } catch (error) {
    await pool.end();
    throw new StoreOpenError('postgres', `schema '${schema}'`, (error as Error).message, 'Check DATABASE_URL or the PG* variables and that the server is up.');
  }

  let closed = false;
  const assertOpen = () => {
    if (closed) throw new StoreClosedError('postgres', `schema ${schema}`);
  };

  /** A pooled connection; one that cannot be had is `StoreUnavailableError` (nothing was sent). */
  async function connect(): Promise<pg.PoolClient> {
    try {
      return await pool.connect();
    } catch (error) {
      assertOpen();
      throw new StoreUnavailableError('postgres', location, (error as Error).message);
    }
  }

  /** A read on any pooled connection; a lost connection is `StoreUnavailableError`. */
  async function read<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    assertOpen();
    try {
      return (await pool.query<R>(sql, params)).rows;
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      throw new StoreUnavailableError('postgres', location, (error as Error).message);
    }
  }

  /**
   * The connection broke after COMMIT was sent (or COMMIT failed): whether transaction `xid`
   * committed is asked on fresh connections, with backoff, until the server says or
   * `commitOutcomeTimeoutMs` has passed. Resolves if it committed; otherwise rejects with why not
   * (`StoreUnavailableError` when it was rolled back), or `CommitOutcomeUnknownError`.
   *
   * After a server crash, an id whose transaction left nothing durable is handed out again, so
   * "committed" is believed only if a row the commit wrote (`witness`: an event, never updated, or
   * else a created run) is there with our id as its `xmin`. Our transaction, had it committed,
   * would have made its id durable, so "aborted", or an id the server has not reached yet, is final.
   */
  async function settle(xid: string, witness: { runId: string; seq?: number }, failure: Error, runs: Array<{ runId: string; seq: number }>): Promise<void> {
    const rolledBack = () =>
      isConnectionLoss(failure) ? new StoreUnavailableError('postgres', location, `${failure.message}; the server rolled the transaction back`) : failure;
    const deadline = Date.now() + outcomeTimeoutMs;
    let reason = failure.message;
    for (let wait = 20; ; wait = Math.min(wait * 2, 1000)) {
      let status: string | null;
      try {
        status = (await pool.query<{ status: string | null }>('SELECT txid_status($1::bigint) AS status', [xid])).rows[0]!.status;
        if (status === 'committed') {
          const xmin = String(BigInt(xid) % 2n ** 32n);
          const written =
            witness.seq === undefined
              ? await pool.query(`SELECT 1 FROM ${schema}.runs WHERE run_id = $1 AND xmin = $2::xid`, [witness.runId, xmin])
              : await pool.query(`SELECT 1 FROM ${schema}.events WHERE run_id = $1 AND seq = $2 AND xmin = $3::xid`, [witness.runId, witness.seq, xmin]);
          if (written.rowCount) return;
          throw rolledBack();
        }
      } catch (error) {
        if (error === failure || error instanceof StoreUnavailableError) throw error;
        // 22023: "transaction ID is in the future", an id lost with a crash before it was used again.
        if (error instanceof pg.DatabaseError && error.code === '22023') throw rolledBack();
        reason = `${failure.message}; asking the server since: ${(error as Error).message}`;
        if (!isConnectionLoss(error)) break;
        status = 'unreachable';
      }
      if (status === 'aborted') throw rolledBack();
      // Null: too old to be known (or another server's id); 'in progress': the backend is still finishing.
      if (status !== 'unreachable') reason = `${failure.message}; transaction ${xid} is ${status ?? 'unknown to the server'}`;
      if (status === null || closed || Date.now() + wait > deadline) break;
      await delay(wait);
    }
    throw new CommitOutcomeUnknownError('postgres', location, xid, runs, reason);
  }

  async function commit(commits: readonly Commit[]): Promise<void> {
    assertOpen();
    if (commits.length === 0) return;
    // Several steps of one run in a batch become one row write: its first expected seq, its last row.
    const byRun = new Map<string, { first: Commit; last: Commit; chainBroken: boolean }>();
    for (const c of commits) {
      const seen = byRun.get(c.run.runId);
      if (!seen) byRun.set(c.run.runId, { first: c, last: c, chainBroken: false });
      else {
        if (c.expectedSeq !== seen.last.run.seq) seen.chainBroken = true;
        seen.last = c;
      }
    }
    const creates = [...byRun.values()].filter((r) => r.first.expectedSeq === undefined);
    const updates = [...byRun.values()].filter((r) => r.first.expectedSeq !== undefined);
    const rowArrays = (rows: typeof creates) => {
      const runs = rows.map((r) => r.last.run);
      return [
        runs.map((r) => r.runId),
        runs.map((r) => r.machine),
        runs.map((r) => r.version),
        runs.map((r) => r.status),
        runs.map((r) => r.state),
        runs.map((r) => r.seq),
        runs.map((r) => JSON.stringify(r.snapshot)),
        runs.map((r) => JSON.stringify(r.input ?? null)),
        runs.map((r) => (r.owner ? JSON.stringify(r.owner) : null)),
        runs.map((r) => r.createdAt),
        runs.map((r) => r.updatedAt),
      ];
    };

    // Until COMMIT is sent, a lost connection means the server rolled the transaction back, so it is
    // tried once more on a fresh connection (an idle one may have died unnoticed) before refusing.
    let lost: Error | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const client = await connect();
      // The transaction's id, returned with the rows it writes (no extra round trip): if the reply to
      // COMMIT is lost, the server can still say what became of it (see `settle`). A transaction that
      // wrote no row is refused as a conflict before COMMIT, so every COMMIT sent has one.
      let xid: string | undefined;
      let commitSent = false;
      try {
        await client.query('BEGIN');
        const written = new Set<string>();
        if (creates.length) {
          const result = await client.query<{ run_id: string; xid: string }>(
            `INSERT INTO ${schema}.runs (run_id, machine, version, status, state, seq, snapshot, input, owner, created_at, updated_at)
             SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[], $9::jsonb[], $10::bigint[], $11::bigint[])
             ON CONFLICT (run_id) DO NOTHING RETURNING run_id, txid_current()::text AS xid`,
            rowArrays(creates),
          );
          for (const row of result.rows) written.add(row.run_id);
          xid ??= result.rows[0]?.xid;
        }
        if (updates.length) {
          const [ids, , versions, statuses, states, seqs, snapshots, , owners, , updatedAts] = rowArrays(updates);
          const result = await client.query<{ run_id: string; xid: string }>(
            `UPDATE ${schema}.runs AS r SET version = u.version, status = u.status, state = u.state, seq = u.seq,
               snapshot = u.snapshot, owner = u.owner, updated_at = u.updated_at
             FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[], $8::bigint[], $9::int[])
               AS u(run_id, version, status, state, seq, snapshot, owner, updated_at, expected_seq)
             WHERE r.run_id = u.run_id AND r.seq = u.expected_seq RETURNING r.run_id, txid_current()::text AS xid`,
            [ids, versions, statuses, states, seqs, snapshots, owners, updatedAts, updates.map((r) => r.first.expectedSeq)],
          );
          for (const row of result.rows) written.add(row.run_id);
          xid ??= result.rows[0]?.xid;
        }
        const refused = [...byRun.values()].filter((r) => r.chainBroken || !written.has(r.first.run.runId));
        if (refused.length) {
          const stored = await client.query<{ run_id: string; seq: number }>(`SELECT run_id, seq FROM ${schema}.runs WHERE run_id = ANY($1)`, [
            refused.map((r) => r.first.run.runId),
          ]);
          const seqOf = new Map(stored.rows.map((r) => [r.run_id, r.seq]));
          await client.query('ROLLBACK');
          throw new CommitConflictError(refused.map((r) => ({ runId: r.first.run.runId, expectedSeq: r.first.expectedSeq, storedSeq: seqOf.get(r.first.run.runId) })));
        }
        const events = commits.filter((c) => c.event);
        if (events.length) {
          const e = events.map((c) => c.event!);
          await client.query(
            `INSERT INTO ${schema}.events (run_id, seq, event, at, actor, reason, idempotency_key, before_state, after_state, result)
             SELECT * FROM unnest($1::text[], $2::int[], $3::jsonb[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[])`,
            [
              e.map((x) => x.runId),
              e.map((x) => x.seq),
              e.map((x) => JSON.stringify(x.event)),
              e.map((x) => x.at),
              e.map((x) => x.actor ?? null),
              e.map((x) => x.reason ?? null),
              e.map((x) => x.idempotencyKey ?? null),
              e.map((x) => x.before),
              e.map((x) => x.after),
              events.map((c) => (c.result === undefined ? null : JSON.stringify(c.result))),
            ],
          );
        }
        commitSent = true;
        await client.query('COMMIT');
        client.release();
        return;
      } catch (error) {
        if (error instanceof CommitConflictError) {
          client.release();
          throw error;
        }
        if (!commitSent && !isConnectionLoss(error)) {
          const rolledBack = await client.query('ROLLBACK').then(() => true, () => false);
          client.release(rolledBack ? undefined : (error as Error));
          throw error;
        }
        // The connection is broken, or in a transaction whose end we did not see: the pool replaces it.
        client.release(error as Error);
        if (commitSent) {
          const event = commits.find((c) => c.event)?.event;
          const witness = event ? { runId: event.runId, seq: event.seq } : { runId: commits[0]!.run.runId };
          return settle(xid!, witness, error as Error, [...byRun.values()].map((r) => ({ runId: r.last.run.runId, seq: r.last.run.seq })));
        }
        lost = error as Error;
      }
    }
    throw new StoreUnavailableError('postgres', location, lost!.message);
  }

  return {
    kind: 'postgres',
    commit,
    async load(runId) {
      const rows = await read<RunRow>(`SELECT * FROM ${schema}.runs WHERE run_id = $1`, [runId]);
      return rows[0] && toRun(rows[0]);
    },
    async list(filter: RunFilter = {}) {
      const where: string[] = [];
      const params: string[] = [];
      for (const [column, value] of [['machine', filter.machine], ['status', filter.status], ['state', filter.state]] as const) {
        if (value === undefined) continue;
        params.push(value);
        where.push(`${column} = $${params.length}`);
      }
      const rows = await read<RunRow>(
        `SELECT * FROM ${schema}.runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, run_id`,
        params,
      );
      return rows.map(toRun);
    },
    async history(runId) {
      const rows = await read<EventRow>(`SELECT * FROM ${schema}.events WHERE run_id = $1 ORDER BY seq`, [runId]);
      return rows.map(toEvent);
    },
    async findIdempotent(runId, key) {
      const rows = await read<{ seq: number; result: unknown }>(
        `SELECT seq, result FROM ${schema}.events WHERE run_id = $1 AND idempotency_key = $2`,
        [runId, key],
      );
      return rows[0] && { seq: rows[0].seq, result: rows[0].result ?? undefined };
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
