/**
 * What became of a commit whose connection broke after its statement was sent: the reply (and with
 * it the answer) may be lost although the server committed. A commit is one statement in autocommit,
 * so the client never learns its transaction id before the outcome; instead every row a commit
 * writes carries the commit's own random id (`commit_id`), and the store asks:
 *
 * 1. Has the backend that ran the statement ended (that backend only: its pid and start time)? From
 *    then on the statement can no longer commit, so the outcome is final. A backend whose client
 *    went away ends by itself once it has run what it had received; one that has not ended within
 *    `TERMINATE_AFTER_MS` (its peer never told it, as when the network is cut) is ended with
 *    `pg_terminate_backend`, unless it is running a statement, which may be ours: that one is let finish.
 * 2. Is a row the commit wrote there with its id? Its first event, else its first run. Events are
 *    never rewritten, so the id is there exactly when the commit is.
 */
import pg from 'pg';
import { setTimeout as delay } from 'node:timers/promises';
import { isConnectionLoss } from './postgres-connection-loss.js';
import { backendAlive, BACKEND_OF, commitWitness } from './statements.js';
import { CommitOutcomeUnknownError, StoreUnavailableError } from '../store-errors.js';

/** How long a backend whose client is gone is left to end by itself before it is ended. */
const TERMINATE_AFTER_MS = 1000;

/** A server process, told from a later one that got the same pid by its start time. */
export interface Backend {
  readonly pid: number;
  readonly startedAt: string;
}

/**
 * Each pooled connection's backend, asked once per connection (before its first commit: a client
 * runs one query at a time) and kept for the connection's life.
 */
export function backendsOf(): (client: pg.PoolClient) => Backend | Promise<Backend> {
  const backends = new WeakMap<pg.PoolClient, Backend>();
  const ask = async (client: pg.PoolClient) => {
    const { rows } = await client.query<{ pid: number; started_at: string }>(BACKEND_OF);
    const backend = { pid: rows[0]!.pid, startedAt: rows[0]!.started_at };
    backends.set(client, backend);
    return backend;
  };
  return (client) => backends.get(client) ?? ask(client);
}

export interface LostCommit {
  readonly backend: Backend;
  readonly commitId: string;
  /** A row the commit wrote: an event (`seq` given) or else a created or updated run. */
  readonly witness: { readonly runId: string; readonly seq?: number };
  readonly failure: Error;
  /** Each run of the commit and the seq it would be at, for `CommitOutcomeUnknownError`. */
  readonly runs: ReadonlyArray<{ runId: string; seq: number }>;
}

export interface OutcomeSource {
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly location: string;
  readonly timeoutMs: number;
  readonly closed: () => boolean;
}

/**
 * Resolves if the lost commit committed; rejects with `StoreUnavailableError` if it did not (and now
 * cannot), or `CommitOutcomeUnknownError` if the server could not say within `timeoutMs`, asking on
 * fresh connections with backoff.
 */
export async function settleLostCommit(source: OutcomeSource, lost: LostCommit): Promise<void> {
  const { pool, schema, location } = source;
  const { backend, failure } = lost;
  const rolledBack = (why: string) => new StoreUnavailableError('postgres', location, `${failure.message}; ${why}`);
  const deadline = Date.now() + source.timeoutMs;
  const witness = commitWitness(schema, lost.witness, lost.commitId);
  // Without the right to end the backend (another role's pooler, say), the store waits for it to end.
  let mayTerminate = true;
  const terminateFrom = Date.now() + TERMINATE_AFTER_MS;
  let reason = failure.message;
  for (let wait = 10; ; wait = Math.min(wait * 2, 1000)) {
    try {
      const terminate = mayTerminate && Date.now() >= terminateFrom;
      const alive = await pool.query(backendAlive(terminate), [backend.pid, backend.startedAt]);
      if (alive.rowCount === 0) {
        if ((await pool.query<{ committed: boolean }>(witness)).rows[0]!.committed) return;
        throw rolledBack('the server rolled the transaction back');
      }
      reason = `${failure.message}; backend ${backend.pid}, which ran it, had not ended yet`;
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      // 42501: insufficient privilege.
      if (error instanceof pg.DatabaseError && error.code === '42501' && mayTerminate) {
        mayTerminate = false;
        continue;
      }
      reason = `${failure.message}; asking the server since: ${(error as Error).message}`;
      if (!isConnectionLoss(error)) break;
    }
    if (source.closed() || Date.now() + wait > deadline) break;
    await delay(wait);
  }
  throw new CommitOutcomeUnknownError(
    'postgres',
    location,
    lost.commitId,
    lost.runs,
    reason,
    `${witness} (once backend ${backend.pid} has ended)`,
  );
}
