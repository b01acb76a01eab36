/**
 * Leases and the timer index on Postgres (`StoreLeases`): each method is one statement. The sweep
 * (`claimDue`) finds its candidates through the partial indexes of postgres-schema.ts and locks them
 * with `FOR UPDATE SKIP LOCKED`, so hosts sweeping at once each take different runs and never wait
 * for one another; the lease before the claim comes back with each run, carried by the CTE that
 * locked it.
 */
import { toLease, toRun, type LeaseColumns, type RunRow } from './postgres-rows.js';
import { claimDueStatement, claimRuns, leaseHolders, releaseLeases, renewLeases } from './statements.js';
import { RunHeldError, type Claim, type ClaimOptions, type OwnerInfo, type StoreLeases } from '../store.js';

/** How the store runs a statement: on any pooled connection, a lost connection typed as `StoreUnavailableError`. */
export type Read = <R extends object>(sql: string, params: unknown[]) => Promise<R[]>;

/** A claimed row: the run as it is now, and its lease before the claim (`prev_*`). */
type ClaimedRow = RunRow & { [K in keyof LeaseColumns as `prev_${K}`]: LeaseColumns[K] };

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

type LockedRow = Partial<RunRow> & ClaimedRow & { locked_id: string; prev_status: string };

/**
 * What a locked row says of its run: claimed; held by another live holder (`RunHeldError`); or
 * 'passed over': a row another backend was updating when the statement began (a killed client's
 * last commit, which the server finishes) is locked at its newest version, but the UPDATE of the
 * same statement may then pass over it. Asked again, with a fresh snapshot, it is taken.
 */
function outcome(
  row: LockedRow,
  owner: OwnerInfo,
  { now, takeFrom = [] }: ClaimOptions,
): Claim | RunHeldError | 'passed over' {
  if (row.run_id !== null) return toClaim(row as ClaimedRow);
  const held =
    row.prev_status === 'active' &&
    row.prev_lease_state === 'held' &&
    Number(row.prev_lease_expires) > now &&
    row.prev_lease_holder !== owner.id &&
    !takeFrom.includes(row.prev_lease_holder!);
  return held ? new RunHeldError(row.locked_id, toClaim(row as ClaimedRow).previous!) : 'passed over';
}

export function postgresLeases(schema: string, read: Read): StoreLeases {
  const runs = `${schema}.runs`;
  const claimOne = claimRuns(runs, 'one');
  const claimMany = claimRuns(runs, 'many');
  const lockAndClaim = (
    wanted: string | readonly string[],
    owner: OwnerInfo,
    { now, ttlMs, takeFrom = [] }: ClaimOptions,
  ) =>
    read<LockedRow>(typeof wanted === 'string' ? claimOne : claimMany, [
      owner.id,
      JSON.stringify(owner),
      now,
      ttlMs,
      wanted,
      takeFrom,
    ]);

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
      if (attempt === 3)
        throw new Error(
          `The claim of run '${runId}' was passed over three times by a concurrent update; retry the event.`,
        );
    }
  }

  return {
    async claimDue(owner, { now, dueBy, ttlMs, limit, takeFrom = [], passOver = [] }) {
      const rows = await read<ClaimedRow>(claimDueStatement(runs), [
        owner.id,
        JSON.stringify(owner),
        now,
        ttlMs,
        dueBy,
        limit,
        takeFrom,
        passOver,
      ]);
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
          return claimRun(runId, owner, options).catch((error: unknown) =>
            error instanceof Error ? error : new Error(String(error)),
          );
        }),
      );
    },

    async renew(holder, leases, { now, ttlMs }) {
      if (leases.length === 0) return [];
      const rows = await read<{ run_id: string }>(renewLeases(runs), [
        holder,
        leases.map((l) => l.runId),
        leases.map((l) => l.epoch),
        now,
        ttlMs,
      ]);
      return rows.map((r) => r.run_id);
    },

    async release(holder, leases, { handedOver }) {
      if (leases.length === 0) return;
      await read(releaseLeases(runs), [
        holder,
        leases.map((l) => l.runId),
        leases.map((l) => l.epoch),
        leases.map((l) => l.wakeAt),
        handedOver ? 'handedOver' : 'released',
      ]);
    },

    async holders() {
      const rows = await read<{ owner: RunRow['owner']; runs: number }>(leaseHolders(runs), []);
      return rows.map((r) => ({ owner: r.owner!, runs: r.runs }));
    },
  };
}
