/**
 * Leases and the timer index on Postgres (`StoreLeases`): each method is one statement. The sweep
 * (`claimDue`) finds its candidates through the partial indexes of postgres-schema.ts and locks them
 * with `FOR UPDATE SKIP LOCKED`, so hosts sweeping at once each take different runs and never wait
 * for one another; the lease before the claim comes back with each run, carried by the CTE that
 * locked it.
 */
import { RUN_COLUMNS, toLease, toRun, type LeaseColumns, type RunRow } from './postgres-rows.js';
import { RunHeldError, type Claim, type ClaimOptions, type OwnerInfo, type StoreLeases } from '../store.js';

/** How the store runs a statement: on any pooled connection, a lost connection typed as `StoreUnavailableError`. */
export type Read = <R extends object>(sql: string, params: unknown[]) => Promise<R[]>;

/** A claimed row: the run as it is now, and its lease before the claim (`prev_*`). */
type ClaimedRow = RunRow & { [K in keyof LeaseColumns as `prev_${K}`]: LeaseColumns[K] };

const PREVIOUS = 'lease_holder AS prev_lease_holder, lease_state AS prev_lease_state, lease_epoch AS prev_lease_epoch, lease_expires AS prev_lease_expires, lease_renewed AS prev_lease_renewed';
const RETURNED = RUN_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ');

const toClaim = (row: ClaimedRow): Claim => ({
  run: toRun(row),
  previous: toLease({
    lease_holder: row.prev_lease_holder,
    lease_state: row.prev_lease_state,
    lease_epoch: row.prev_lease_epoch,
    lease_expires: row.prev_lease_expires,
    lease_renewed: row.prev_lease_renewed,
  }),
});

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

/**
 * The sweep's statement, on table `runs`: $1 holder, $2 owner, $3 now, $4 ttl, $5 dueBy, $6 limit,
 * $7 takeFrom. Each way in reads its own partial index (predicates as in postgres-schema.ts); the
 * lock then checks the run again, on its latest version, so a run another host claimed meanwhile is
 * passed over.
 */
export const claimDueStatement = (runs: string) =>
  `WITH candidates AS (
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND lease_state = 'held' AND lease_expires <= $3 ORDER BY lease_expires LIMIT $6)
     UNION ALL
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND lease_state = 'held' AND lease_holder = ANY($7::text[]) LIMIT $6)
     UNION ALL
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND wake_at IS NOT NULL AND lease_state IS DISTINCT FROM 'held' AND wake_at <= $5 ORDER BY wake_at LIMIT $6)
     UNION ALL
     (SELECT run_id FROM ${runs} WHERE status = 'active' AND lease_state = 'handedOver' LIMIT $6)
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
const claimStatement = (runs: string, which: 'one' | 'many') =>
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

type LockedRow = Partial<RunRow> & ClaimedRow & { locked_id: string; prev_status: string };

/**
 * What a locked row says of its run: claimed; held by another live holder (`RunHeldError`); or
 * 'passed over': a row another backend was updating when the statement began (a killed client's
 * last commit, which the server finishes) is locked at its newest version, but the UPDATE of the
 * same statement may then pass over it. Asked again, with a fresh snapshot, it is taken.
 */
function outcome(row: LockedRow, owner: OwnerInfo, { now, takeFrom = [] }: ClaimOptions): Claim | RunHeldError | 'passed over' {
  if (row.run_id !== null) return toClaim(row as ClaimedRow);
  const held = row.prev_status === 'active' && row.prev_lease_state === 'held' && Number(row.prev_lease_expires) > now && row.prev_lease_holder !== owner.id && !takeFrom.includes(row.prev_lease_holder!);
  return held ? new RunHeldError(row.locked_id, toClaim(row as ClaimedRow).previous!) : 'passed over';
}

export function postgresLeases(schema: string, read: Read): StoreLeases {
  const runs = `${schema}.runs`;
  const claimOne = claimStatement(runs, 'one');
  const claimMany = claimStatement(runs, 'many');
  const lockAndClaim = (wanted: string | readonly string[], owner: OwnerInfo, { now, ttlMs, takeFrom = [] }: ClaimOptions) =>
    read<LockedRow>(typeof wanted === 'string' ? claimOne : claimMany, [owner.id, JSON.stringify(owner), now, ttlMs, wanted, takeFrom]);

  /**
   * Committed without waiting for its WAL flush (`synchronous_commit` off for this one statement):
   * the event's commit that follows at once flushes the WAL up to itself, the claim included, so
   * the claim is durable when anything written under it is. Lost to a server crash before that,
   * nothing was acknowledged under it, and the fence (holder and epoch) still refuses a late commit.
   * That halves what waking a sleeping run for one event costs (two WAL flushes to one).
   */
  async function claimRun(runId: string, owner: OwnerInfo, options: ClaimOptions): Promise<Claim | undefined> {
    for (let attempt = 1; ; attempt++) {
      const [row] = await lockAndClaim(runId, owner, options);
      if (!row) return undefined;
      const claim = outcome(row, owner, options);
      if (claim instanceof RunHeldError) throw claim;
      if (claim !== 'passed over') return claim;
      if (attempt === 3) throw new Error(`The claim of run '${runId}' was passed over three times by a concurrent update; retry the event.`);
    }
  }

  return {
    async claimDue(owner, { now, dueBy, ttlMs, limit, takeFrom = [] }) {
      const rows = await read<ClaimedRow>(claimDueStatement(runs), [owner.id, JSON.stringify(owner), now, ttlMs, dueBy, limit, takeFrom]);
      return rows.map(toClaim);
    },

    claimRun,

    /** One statement for all the runs; a run it passed over (see `outcome`) is asked again alone. */
    async claimRuns(runIds, owner, options) {
      const byId = new Map((await lockAndClaim(runIds, owner, options)).map((row) => [row.locked_id, row]));
      return Promise.all(
        runIds.map(async (runId) => {
          const row = byId.get(runId);
          const claim = row && outcome(row, owner, options);
          if (claim !== 'passed over') return claim;
          // Its own failure is its own answer: the runs the statement claimed stay claimed, and said so.
          return claimRun(runId, owner, options).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
        }),
      );
    },

    async renew(holder, leases, { now, ttlMs }) {
      if (leases.length === 0) return [];
      const rows = await read<{ run_id: string }>(
        `WITH wanted AS (
           SELECT * FROM unnest($2::text[], $3::integer[]) AS w(run_id, epoch)
         ), locked AS MATERIALIZED (
           ${lockedInOrder(runs, 'wanted w', 'r.run_id = w.run_id AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = \'held\'')}
         ), renewed AS (
           UPDATE ${runs} r SET lease_expires = $4::bigint + $5::bigint, lease_renewed = $4
           FROM wanted w WHERE r.run_id = w.run_id AND r.run_id IN (SELECT run_id FROM locked)
             AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = 'held'
           RETURNING r.run_id
         )
         SELECT run_id FROM wanted WHERE run_id NOT IN (SELECT run_id FROM renewed)`,
        [holder, leases.map((l) => l.runId), leases.map((l) => l.epoch), now, ttlMs],
      );
      return rows.map((r) => r.run_id);
    },

    async release(holder, leases, { handedOver }) {
      if (leases.length === 0) return;
      await read(
        `WITH wanted AS (
           SELECT * FROM unnest($2::text[], $3::integer[], $4::bigint[]) AS w(run_id, epoch, wake_at)
         ), locked AS MATERIALIZED (
           ${lockedInOrder(runs, 'wanted w', 'r.run_id = w.run_id AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = \'held\'')}
         )
         UPDATE ${runs} r SET lease_state = $5, wake_at = w.wake_at
         FROM wanted w WHERE r.run_id = w.run_id AND r.run_id IN (SELECT run_id FROM locked)
           AND r.lease_holder = $1 AND r.lease_epoch = w.epoch AND r.lease_state = 'held'`,
        [holder, leases.map((l) => l.runId), leases.map((l) => l.epoch), leases.map((l) => l.wakeAt), handedOver ? 'handedOver' : 'released'],
      );
    },

    async holders() {
      const rows = await read<{ owner: RunRow['owner']; runs: number }>(
        `SELECT owner, count(*)::integer AS runs FROM ${runs} WHERE status = 'active' AND lease_state = 'held' AND owner IS NOT NULL GROUP BY owner`,
        [],
      );
      return rows.map((r) => ({ owner: r.owner!, runs: r.runs }));
    },
  };
}
