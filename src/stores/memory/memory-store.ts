import {
  countOf,
  findConflicts,
  LeaseLostError,
  matches,
  pageOf,
  plainRow,
  RunHeldError,
  type Claim,
  type ClaimOptions,
  type Commit,
  type CommitLease,
  type EventRecord,
  type OwnerInfo,
  type RunFilter,
  type RunLease,
  type Store,
  type StoreLeases,
  type StoredRun,
} from '../store.js';
import { StoreClosedError } from '../store-errors.js';

/**
 * Keeps everything in this process: for tests, and for runs that need no durability.
 *
 * A commit's objects are kept as given, not copied: the Store contract hands them to the store
 * (the runtime builds fresh ones for every step and never touches them again), and a run's row
 * keeps its snapshot lazy, so a run nobody reads back never pays for serializing it. Everything
 * read out is a JSON copy, exactly what a serializing store would give back, so no reader can
 * change what is stored.
 *
 * Leases and the timer index live beside the rows (a row is kept as given, so it cannot carry
 * them): a commit without a lease and without a deadline touches neither.
 */
export function memoryStore(): Store {
  const runs = new Map<string, StoredRun>();
  const events = new Map<string, EventRecord[]>();
  const idempotent = new Map<string, { seq: number; result: unknown }>();
  const leaseOf = new Map<string, RunLease>();
  const wakeAtOf = new Map<string, number>();
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new StoreClosedError('memory', 'this process');
  };
  const read = (run: StoredRun): StoredRun => {
    const copied = copy(run) as { -readonly [K in keyof StoredRun]: StoredRun[K] };
    const lease = leaseOf.get(run.runId);
    const wakeAt = wakeAtOf.get(run.runId);
    if (lease) copied.lease = { ...lease };
    if (wakeAt !== undefined) copied.wakeAt = wakeAt;
    return copied;
  };

  const fenced = (commits: readonly Commit[]): LeaseLostError | undefined => {
    let lost: Array<{ runId: string; holder: string; epoch: number; stored: RunLease | undefined }> | undefined;
    let checked: CommitLease | undefined;
    let checkedRun: string | undefined;
    // Runs the batch itself creates: their later steps in the batch are fenced by the creating lease.
    let created: Map<string, CommitLease> | undefined;
    for (const { run, lease, expectedSeq } of commits) {
      if (lease && expectedSeq === undefined) (created ??= new Map()).set(run.runId, lease);
      // A run's steps of one batch share one lease object: checked once.
      if (!lease || expectedSeq === undefined || (lease === checked && run.runId === checkedRun)) continue;
      checked = lease;
      checkedRun = run.runId;
      const creating = created?.get(run.runId);
      const stored = creating
        ? {
            holder: creating.holder,
            state: 'held' as const,
            epoch: creating.epoch,
            expiresAt: creating.expiresAt,
            renewedAt: creating.now,
          }
        : leaseOf.get(run.runId);
      if (stored?.state === 'held' && stored.holder === lease.holder && stored.epoch === lease.epoch) continue;
      if (
        lease.claims !== undefined &&
        stored?.state === 'released' &&
        stored.epoch === lease.claims &&
        runs.get(run.runId)?.status === 'active'
      )
        continue;
      (lost ??= []).push({
        runId: run.runId,
        holder: lease.holder,
        epoch: lease.epoch,
        stored: stored && { ...stored },
      });
    }
    return lost && new LeaseLostError(lost);
  };

  /** Takes the run for `owner` at the next epoch; returns what the claim took. */
  const take = (runId: string, run: StoredRun, owner: OwnerInfo, now: number, ttlMs: number): Claim => {
    const previous = leaseOf.get(runId);
    const previousOwner = run.owner;
    leaseOf.set(runId, {
      holder: owner.id,
      state: 'held',
      epoch: (previous?.epoch ?? 0) + 1,
      expiresAt: now + ttlMs,
      renewedAt: now,
    });
    const { lease: _lease, wakeAt: _wakeAt, ...row } = plainRow(run);
    runs.set(runId, { ...row, owner });
    return {
      run: read(runs.get(runId)!),
      previous: previous && { ...previous },
      ...(previousOwner && { previousOwner: { ...previousOwner } }),
    };
  };

  /** `StoreLeases.claimRun` of one run, its refusal given back rather than thrown. */
  const claimOne = (runId: string, owner: OwnerInfo, { now, ttlMs, takeFrom = [] }: ClaimOptions) => {
    const run = runs.get(runId);
    if (!run) return undefined;
    const lease = leaseOf.get(runId);
    if (
      run.status === 'active' &&
      lease?.state === 'held' &&
      lease.expiresAt > now &&
      lease.holder !== owner.id &&
      !takeFrom.includes(lease.holder)
    ) {
      return new RunHeldError(runId, { ...lease });
    }
    return take(runId, run, owner, now, ttlMs);
  };

  const leases: StoreLeases = {
    async claimDue(owner, { now, dueBy, ttlMs, limit, takeFrom = [], passOver = [] }) {
      assertOpen();
      const claims: Claim[] = [];
      const passedOver = new Set(passOver);
      const due = (runId: string): boolean => {
        const lease = leaseOf.get(runId);
        if (lease?.state === 'held') return lease.expiresAt <= now || takeFrom.includes(lease.holder);
        if (lease?.state === 'handedOver') return true;
        const wakeAt = wakeAtOf.get(runId);
        return wakeAt !== undefined && wakeAt <= dueBy;
      };
      // Only a leased run or one with a deadline can be due: never a scan of every run.
      for (const runId of new Set([...leaseOf.keys(), ...wakeAtOf.keys()])) {
        if (claims.length >= limit) break;
        const run = runs.get(runId);
        if (run?.status !== 'active' || passedOver.has(runId) || !due(runId)) continue;
        claims.push(take(runId, run, owner, now, ttlMs));
      }
      return claims;
    },
    async claimRun(runId, owner, options) {
      assertOpen();
      const claim = claimOne(runId, owner, options);
      if (claim instanceof RunHeldError) throw claim;
      return claim;
    },
    async claimRuns(runIds, owner, options) {
      assertOpen();
      return runIds.map((runId) => claimOne(runId, owner, options));
    },
    async renew(holder, held, { now, ttlMs }) {
      assertOpen();
      const lost: string[] = [];
      for (const { runId, epoch } of held) {
        const lease = leaseOf.get(runId);
        if (lease?.state === 'held' && lease.holder === holder && lease.epoch === epoch)
          leaseOf.set(runId, { ...lease, expiresAt: now + ttlMs, renewedAt: now });
        else lost.push(runId);
      }
      return lost;
    },
    async release(holder, held, { now, handedOver }) {
      assertOpen();
      for (const { runId, epoch, wakeAt } of held) {
        const lease = leaseOf.get(runId);
        if (lease?.state !== 'held' || lease.holder !== holder || lease.epoch !== epoch) continue;
        leaseOf.set(runId, { ...lease, state: handedOver ? 'handedOver' : 'released', renewedAt: now });
        if (wakeAt === null) wakeAtOf.delete(runId);
        else wakeAtOf.set(runId, wakeAt);
      }
    },
    async holders() {
      assertOpen();
      const byId = new Map<string, { owner: OwnerInfo; runs: number }>();
      for (const [runId, lease] of leaseOf) {
        const owner = runs.get(runId)?.owner;
        if (lease.state !== 'held' || !owner) continue;
        const entry = byId.get(owner.id);
        if (entry) entry.runs++;
        else byId.set(owner.id, { owner: { ...owner }, runs: 1 });
      }
      return [...byId.values()];
    },
  };

  return {
    kind: 'memory',
    async commit(commits) {
      assertOpen();
      const lost = fenced(commits);
      if (lost) throw lost;
      const conflict = findConflicts(commits, (id) => runs.get(id)?.seq);
      if (conflict) throw conflict;
      let log: EventRecord[] | undefined;
      let logOf: string | undefined;
      let applied: CommitLease | undefined;
      let appliedRun: string | undefined;
      for (const commit of commits) {
        const runId = commit.run.runId;
        runs.set(runId, commit.run);
        const lease = commit.lease;
        if (lease && (lease !== applied || runId !== appliedRun)) {
          applied = lease;
          appliedRun = runId;
          leaseOf.set(runId, {
            holder: lease.holder,
            state: 'held',
            epoch: lease.epoch,
            expiresAt: lease.expiresAt,
            renewedAt: lease.now,
          });
        }
        if (commit.wakeAt != null) wakeAtOf.set(runId, commit.wakeAt);
        else if (wakeAtOf.size) wakeAtOf.delete(runId);
        const event = commit.event;
        if (!event) continue;
        if (logOf !== runId) {
          logOf = runId;
          log = events.get(runId);
          if (!log) events.set(runId, (log = []));
        }
        log!.push(event);
        if (event.idempotencyKey !== undefined)
          idempotent.set(`${runId}\u0000${event.idempotencyKey}`, { seq: event.seq, result: commit.result });
      }
    },
    async load(runId) {
      assertOpen();
      const run = runs.get(runId);
      return run && read(run);
    },
    async list(filter: RunFilter = {}) {
      assertOpen();
      return [...runs.values()].filter((r) => matches(r, filter)).map(read);
    },
    async listPage(query) {
      assertOpen();
      return pageOf(runs.values(), query, read);
    },
    async countByState(filter: RunFilter = {}) {
      assertOpen();
      return countOf(runs.values(), filter);
    },
    async history(runId) {
      assertOpen();
      return copy(events.get(runId) ?? []);
    },
    async findIdempotent(runId, key) {
      assertOpen();
      const found = idempotent.get(`${runId}\u0000${key}`);
      return found && copy(found);
    },
    leases,
    async close() {
      closed = true;
    },
  };
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));
