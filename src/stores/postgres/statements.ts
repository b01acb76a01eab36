/**
 * Every SQL text the Postgres store runs against its tables, each named after what it does, as pure
 * builders of the schema's name (the tables, indexes and the `commit_steps` function are created in
 * postgres-schema.ts). The store prepares each text once per connection, by the text (see
 * `prepared` in postgres-store.ts).
 */
import { leaseFence, leaseSet } from './postgres-schema.js';
import { likeContaining, type RunFilter, type RunPageQuery } from '../store.js';

/** The run columns every read selects (not the store's own bookkeeping, such as `commit_id`). */
export const RUN_COLUMNS =
  'run_id, machine, version, status, state, seq, snapshot, input, owner, created_at, updated_at, wake_at, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed';

/* Runs and events, read. */

export const loadRun = (schema: string) => `SELECT ${RUN_COLUMNS} FROM ${schema}.runs WHERE run_id = $1`;

/** A run filter's columns as conditions on numbered parameters, for a query to add to. */
function filterConditions<P = string>(filter: RunFilter): { where: string[]; params: P[] } {
  const where: string[] = [];
  const params: P[] = [];
  for (const [column, value] of [
    ['machine', filter.machine],
    ['status', filter.status],
    ['state', filter.state],
  ] as const) {
    if (value === undefined) continue;
    params.push(value as P);
    where.push(`${column} = $${params.length}`);
  }
  return { where, params };
}

/** `Store.list`: the filter's columns as parameters, in the order given. */
export function listRuns(schema: string, filter: RunFilter): { text: string; params: string[] } {
  const { where, params } = filterConditions(filter);
  return {
    text: `SELECT ${RUN_COLUMNS} FROM ${schema}.runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, run_id`,
    params,
  };
}

/**
 * `Store.listPage`: the runs of the filter whose id holds q (ILIKE under "C", which folds only A-Z,
 * as `runIdHas` does; backslash is LIKE's escape), after the cursor `(created_at, run_id)` when
 * `after`, newest first, `limit` of them: a walk of `runs_newest` or one of the indexes over
 * machine or status (postgres-schema.ts), backwards, that stops when the page is full.
 */
export function pageRuns(
  schema: string,
  query: Pick<RunPageQuery, 'machine' | 'status' | 'state' | 'q' | 'after' | 'limit'>,
): { text: string; params: unknown[] } {
  const { where, params } = filterConditions<unknown>(query);
  if (query.q) {
    params.push(likeContaining(query.q));
    where.push(`run_id COLLATE "C" ILIKE $${params.length}`);
  }
  if (query.after) {
    params.push(query.after.createdAt, query.after.runId);
    where.push(`(created_at, run_id COLLATE "C") < ($${params.length - 1}::bigint, $${params.length}::text)`);
  }
  params.push(query.limit);
  return {
    text: `SELECT ${RUN_COLUMNS} FROM ${schema}.runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
  ORDER BY created_at DESC, run_id COLLATE "C" DESC LIMIT $${params.length}`,
    params,
  };
}

/** `Store.countByState`: the runs of the filter by lifecycle, status and state, counted by the server. */
export function countRuns(schema: string, filter: RunFilter): { text: string; params: string[] } {
  const { where, params } = filterConditions(filter);
  return {
    text: `SELECT machine, status, state, count(*)::integer AS runs FROM ${schema}.runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} GROUP BY machine, status, state`,
    params,
  };
}

export const runHistory = (schema: string) => `SELECT * FROM ${schema}.events WHERE run_id = $1 ORDER BY seq`;

export const idempotentEvent = (schema: string) =>
  `SELECT seq, result FROM ${schema}.events WHERE run_id = $1 AND idempotency_key = $2`;

/* Commits (postgres-commit.ts). */

/** Opens both commit statements: names them to a person reading pg_stat_activity, and to the tests' cutting proxy. */
export const COMMIT_MARK = '/* statewright commit */';

/** Any other batch: one call of the schema's `commit_steps` function, the batch as $2 runs and $3 events (see postgres-schema.ts). */
export const callCommitSteps = (schema: string) =>
  `${COMMIT_MARK} SELECT ${schema}.commit_steps($1::bigint, $2::jsonb, $3::jsonb)`;

/**
 * The usual batch, one step of one run with its event (a run whose events are each awaited), as
 * one plain statement: no function, no JSON to take apart, the run found by its key. Its event is
 * appended only if the run was written, so a refusal writes nothing and inserts no row (the
 * statement's row count, which comes back in its completion tag: no rows to describe and parse).
 */
export const commitOneStep = (schema: string) => `${COMMIT_MARK}
  WITH stepped AS (
    UPDATE ${schema}.runs AS r SET version = $3::integer, status = $4::text, state = $5::text, seq = $6::integer, snapshot = $7::jsonb,
        owner = $8::jsonb, updated_at = $9::bigint, wake_at = $10::bigint, commit_id = $1::bigint,
        ${leaseSet('r', { holder: '$12::text', epoch: '$13::integer', expires: '$14::bigint', now: '$15::bigint', claims: '$25::integer' })}
      WHERE r.run_id = $2::text AND r.seq = $11::integer
        AND ${leaseFence('r', { holder: '$12::text', epoch: '$13::integer', claims: '$25::integer' })}
      RETURNING r.run_id
  )
  INSERT INTO ${schema}.events (run_id, seq, event, at, actor, reason, idempotency_key, before_state, after_state, result, commit_id, credential)
    SELECT run_id, $16::integer, $17::jsonb, $18::bigint, $19::text, $20::text, $21::text, $22::text, $23::text, $24::jsonb, $1::bigint, $26::text
    FROM stepped`;

/** The seq stored for each of the runs $1: a refused batch says which runs it conflicts on. */
export const storedSeqs = (schema: string) => `SELECT run_id, seq FROM ${schema}.runs WHERE run_id = ANY($1)`;

/** The seq and lease stored for run $1, as `commit_steps` reports a refused run. */
export const storedSeqAndLease = (
  schema: string,
) => `SELECT seq, CASE WHEN lease_holder IS NOT NULL THEN jsonb_build_object('holder', lease_holder, 'state', lease_state, 'epoch', lease_epoch,
       'expiresAt', lease_expires, 'renewedAt', lease_renewed) END AS lease FROM ${schema}.runs WHERE run_id = $1`;

/* What became of a commit whose connection was lost (postgres-commit-outcome.ts). */

/** The backend this connection talks to: its pid and its start time, which tells it from a later one with the same pid. */
export const BACKEND_OF = 'SELECT pid, backend_start::text AS started_at FROM pg_stat_get_activity(pg_backend_pid())';

/** Whether backend $1 (started at $2) is still there; `terminate`: ended too, unless it is running a statement. */
export const backendAlive = (terminate: boolean) =>
  `SELECT ${terminate ? "CASE WHEN state = 'active' THEN true ELSE pg_terminate_backend(pid) END" : 'true'} FROM pg_stat_activity WHERE pid = $1 AND backend_start::text = $2`;

/**
 * Whether commit `commitId` wrote its witness row: an event (`seq` given), else a run. A literal
 * statement, not parameters, so the error that cannot say hands a person the query to run.
 */
export function commitWitness(
  schema: string,
  witness: { readonly runId: string; readonly seq?: number },
  commitId: string,
): string {
  return witness.seq === undefined
    ? `SELECT EXISTS (SELECT 1 FROM ${schema}.runs WHERE run_id = ${literal(witness.runId)} AND commit_id = ${commitId}) AS committed`
    : `SELECT EXISTS (SELECT 1 FROM ${schema}.events WHERE run_id = ${literal(witness.runId)} AND seq = ${witness.seq} AND commit_id = ${commitId}) AS committed`;
}

/** A string as an SQL literal, for the query the error hands to a person. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/* Leases and the timer index (postgres-leases.ts). */

const PREVIOUS =
  'lease_holder AS prev_lease_holder, lease_state AS prev_lease_state, lease_epoch AS prev_lease_epoch, lease_expires AS prev_lease_expires, lease_renewed AS prev_lease_renewed';
const RETURNED = RUN_COLUMNS.split(', ')
  .map((c) => `r.${c}`)
  .join(', ');

/**
 * Locks the rows of `runs` (as `r`) joined with `from` where `where` holds, in run_id order: every
 * statement that writes several runs (renewals, releases, `commit_steps`) locks them in that order,
 * so two of them never wait on each other in a cycle. Postgres would break such a deadlock only
 * after deadlock_timeout (1 s), failing one of them: a renewal failed so, and commits stalled.
 */
export const lockedInOrder = (runs: string, from: string, where: string) =>
  `SELECT r.run_id FROM ${runs} r JOIN ${from} ON ${where} ORDER BY r.run_id FOR UPDATE OF r`;

/** The new lease a claim writes: $1 holder, $2 owner, $3 now, $4 ttl. */
const TAKE = `lease_holder = $1, owner = $2, lease_state = 'held', lease_epoch = coalesce(r.lease_epoch, 0) + 1, lease_expires = $3::bigint + $4::bigint, lease_renewed = $3`;

/** Leaves out the runs the sweeper passes over (`claimDue`'s `passOver`: ids $8). */
const NOT_PASSED_OVER = 'run_id <> ALL($8::text[])';

/**
 * The sweep's statement, on table `runs`: $1 holder, $2 owner, $3 now, $4 ttl, $5 dueBy, $6 limit,
 * $7 takeFrom, $8 passOver. Each way in reads its own partial index (predicates as in
 * postgres-schema.ts), leaving out the runs passed over before its LIMIT; the lock then checks the
 * run again, on its latest version, so a run another host claimed meanwhile is passed over.
 */
export const claimDueStatement = (runs: string) =>
  `WITH candidates AS (
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND lease_state = 'held' AND lease_expires <= $3 AND ${NOT_PASSED_OVER} ORDER BY lease_expires LIMIT $6)
     UNION ALL
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND lease_state = 'held' AND lease_holder = ANY($7::text[]) AND ${NOT_PASSED_OVER} LIMIT $6)
     UNION ALL
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND wake_at IS NOT NULL AND lease_state IS DISTINCT FROM 'held' AND wake_at <= $5 AND ${NOT_PASSED_OVER} ORDER BY wake_at LIMIT $6)
     UNION ALL
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND lease_state = 'handedOver' AND ${NOT_PASSED_OVER} LIMIT $6)
   ), picked AS (
     SELECT run_id, ${PREVIOUS} FROM ${runs} r
     WHERE run_id IN (SELECT run_id FROM candidates) AND status = 'active'
       AND (lease_state = 'held' AND (lease_expires <= $3 OR lease_holder = ANY($7::text[]))
         OR lease_state IS DISTINCT FROM 'held' AND (wake_at <= $5 OR lease_state = 'handedOver'))
     LIMIT $6 FOR UPDATE SKIP LOCKED
   )
   UPDATE ${runs} r SET ${TAKE} FROM picked p WHERE r.run_id = p.run_id
   RETURNING ${RETURNED}, p.prev_lease_holder, p.prev_lease_state, p.prev_lease_epoch, p.prev_lease_expires, p.prev_lease_renewed`;

/** Whether a run may be claimed, from its lease before the claim (`p`): $1 holder, $3 now, $6 takeFrom (see `StoreLeases.claimRun`). */
const CLAIMABLE = `p.prev_status <> 'active' OR p.prev_lease_state IS DISTINCT FROM 'held' OR p.prev_lease_expires <= $3
  OR p.prev_lease_holder = $1 OR p.prev_lease_holder = ANY($6::text[])`;

/**
 * Claims run $5 (or, `many`, the runs of the array $5) for $1 (owner $2, now $3, ttl $4, takeFrom $6), in one
 * statement: each run is locked first (in run_id order, as every statement that writes several runs
 * locks them: see `lockedInOrder`) to read its lease before the claim, then taken where `CLAIMABLE`.
 * Each locked run comes back with its lease before the claim, and its claimed row when taken.
 * Committed without waiting for its WAL flush: see `claimRun`.
 */
export const claimRuns = (runs: string, which: 'one' | 'many') =>
  `WITH unsynced AS (
     SELECT set_config('synchronous_commit', 'off', true)
   ), previous AS (
     SELECT run_id, status AS prev_status, ${PREVIOUS} FROM ${runs}
     WHERE ${which === 'one' ? 'run_id = $5::text FOR UPDATE' : 'run_id = ANY($5::text[]) ORDER BY run_id FOR UPDATE'}
   ), claimed AS (
     UPDATE ${runs} r SET ${TAKE} FROM previous p WHERE r.run_id = p.run_id AND (${CLAIMABLE})
     RETURNING ${RETURNED}
   )
   SELECT p.run_id AS locked_id, c.*, p.prev_status, p.prev_lease_holder, p.prev_lease_state, p.prev_lease_epoch, p.prev_lease_expires, p.prev_lease_renewed
   FROM previous p LEFT JOIN claimed c ON c.run_id = p.run_id CROSS JOIN unsynced`;

/** Renews $1's leases on the runs $2 at their epochs $3 until $4 + $5; returns the ones it no longer holds. */
export const renewLeases = (runs: string) => `WITH wanted AS (
           SELECT * FROM unnest($2::text[], $3::integer[]) AS w(run_id, epoch)
         ), locked AS MATERIALIZED (
           ${lockedInOrder(runs, 'wanted w', "r.run_id = w.run_id AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = 'held'")}
         ), renewed AS (
           UPDATE ${runs} r SET lease_expires = $4::bigint + $5::bigint, lease_renewed = $4
           FROM wanted w WHERE r.run_id = w.run_id AND r.run_id IN (SELECT run_id FROM locked)
             AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = 'held'
           RETURNING r.run_id
         )
         SELECT run_id FROM wanted WHERE run_id NOT IN (SELECT run_id FROM renewed)`;

/** Lets go $1's leases on the runs $2 at their epochs $3, as state $5, each with its next deadline $4. */
export const releaseLeases = (runs: string) => `WITH wanted AS (
           SELECT * FROM unnest($2::text[], $3::integer[], $4::bigint[]) AS w(run_id, epoch, wake_at)
         ), locked AS MATERIALIZED (
           ${lockedInOrder(runs, 'wanted w', "r.run_id = w.run_id AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = 'held'")}
         )
         UPDATE ${runs} r SET lease_state = $5, wake_at = w.wake_at
         FROM wanted w WHERE r.run_id = w.run_id AND r.run_id IN (SELECT run_id FROM locked)
           AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = 'held'`;

/** The owners of the runs held now, with how many each holds. */
export const leaseHolders = (runs: string) =>
  `SELECT owner, count(*)::integer AS runs FROM ${runs} WHERE status = 'active' AND lease_state = 'held' AND owner IS NOT NULL GROUP BY owner`;
