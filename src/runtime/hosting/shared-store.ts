import type { Clock } from '../../actor-contract/clock.js';
import { StoreClosedError } from '../../stores/store-errors.js';
import {
  LeaseLostError,
  RunHeldError,
  type Claim,
  type CommitLease,
  type OwnerInfo,
  type Store,
  type StoreLeases,
  type StoredRun,
} from '../../stores/store.js';
import type { Channels } from '../channels.js';
import { RunSetAsideError, UnknownRunError } from '../errors.js';
import type { HostedRun } from '../hosted-run.js';
import { GroupClaimer } from './group-claim.js';
import { DEFAULT_HIBERNATION, mayHibernate, type Hibernation } from './hibernation.js';
import type { Found, HostedRuns, Hosting } from './hosting.js';
import { LeaseKeeper } from './lease-keeper.js';
import { deadHolders, isOtherOwnerAlive } from './live-owners.js';
import { periodic, type Periodic } from './periodic.js';

/** Runs claimed per sweep round; the sweep repeats while rounds come back full. */
const SWEEP_LIMIT = 100;

/** What a shared store's hosting works with. */
export interface SharedStoreDeps {
  readonly store: Store;
  readonly leases: StoreLeases;
  readonly owner: OwnerInfo;
  readonly clock: Clock;
  readonly channels: Channels;
  /** How long a hold lasts without a renewal (`createRuntime({ leases })`). */
  readonly ttlMs: number;
  /** Undefined: every hosted run stays in memory. */
  readonly hibernation: Hibernation | undefined;
}

/**
 * Hosting on a store several hosts share (`Store.leases`): each run is held through a lease with
 * an epoch, every commit is fenced by it, the leases are renewed in batches, and a sweep takes over
 * the runs whose host is gone (its lease ran out, or it was a process of this machine that died)
 * and wakes the sleeping runs whose deadline is near. A run sent an event is claimed first.
 */
export class SharedStoreHosting implements Hosting {
  /** The leases this runtime holds. */
  readonly #keeper: LeaseKeeper;
  /** The claims of sleeping runs that events wake, sent together when they come together. */
  readonly #claimer: GroupClaimer;
  /** Leases being released (a run gone to sleep, unloaded): a claim of the run waits for it. */
  readonly #releasing = new Map<string, Promise<void>>();
  /** Runs being taken for the events sent to them (`take`): one alone is read and claimed by its commit. */
  #taking = 0;
  /** The holders the last sweep found dead (processes of this machine that are gone): claims take from them. */
  #deadHolders: string[] = [];
  /** Every holder the last sweep saw, by id: who a run's previous holder was, for its recovery rule. */
  #knownHolders = new Map<string, OwnerInfo>();
  #background: Periodic[] = [];
  #stopped = false;

  constructor(
    private readonly deps: SharedStoreDeps,
    private readonly runs: HostedRuns,
  ) {
    this.#keeper = new LeaseKeeper(deps.leases, deps.owner, deps.ttlMs);
    this.#claimer = new GroupClaimer(deps.leases, deps.owner, deps.ttlMs);
  }

  /** Renews every lease held here every ttl/3. */
  beginRenewing(): void {
    if (this.#stopped) return;
    this.#background.push(
      periodic(
        Math.max(1, Math.floor(this.#keeper.ttlMs / 3)),
        () => this.#renew(),
        this.#backgroundFailed('renewing leases'),
      ),
    );
  }

  /** With `sweeps` (a runtime that recovers), the sweep every min(1000, ttl/4) ms; hibernation runs with it. */
  beginSweeping(sweeps: boolean): void {
    if (this.#stopped) return;
    const task = async () => {
      if (sweeps) await this.#sweep(false);
      this.#hibernateResting();
    };
    this.#background.push(
      periodic(
        Math.max(1, Math.min(1000, Math.floor(this.#keeper.ttlMs / 4))),
        task,
        this.#backgroundFailed('the sweep'),
      ),
    );
  }

  /** The first sweep, which reads only what must act now (due deadlines, the runs of dead or expired holders, handed-over runs), never every active run. */
  recover(): Promise<void> {
    return this.#sweep(true);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#background.map((task) => task.stop()));
  }

  async close(
    runs: ReadonlyArray<{ readonly runId: string; readonly wakeAt: number | null }>,
    handOver: boolean,
  ): Promise<void> {
    await Promise.allSettled([...this.#releasing.values()]);
    try {
      // Handed over: the next host adopts the actors. Otherwise they were ended: the leases run out
      // still held, so the next host applies the recovery rule, as after a crash.
      if (handOver) await this.#keeper.release(runs, true);
      await this.#keeper.expireAll();
    } catch (error) {
      // The runs are stopped here all the same; their leases run out within the TTL instead.
      this.deps.channels.log(
        '',
        'warn',
        `closing, the leases could not be let go (they run out within ${this.#keeper.ttlMs} ms instead): ${(error as Error).message}`,
      );
    }
  }

  /** Claims a run that an event is sent to (or reads it, to be claimed by its first commit). */
  async take(runId: string): Promise<Found | undefined> {
    await this.#releasing.get(runId);
    // Set aside here: refused after a read, never a claim, unless someone else has committed to it since.
    if (this.runs.setAsideOf(runId)) {
      const stored = await this.deps.store.load(runId);
      const setAside = stored && this.runs.setAsideAt(runId, stored.seq);
      if (setAside) throw new RunSetAsideError(runId, setAside.reason);
    }
    this.#taking++;
    try {
      // A lone wake of a run let go cleanly is one write: the run is read, and its first commit claims
      // it. Many at once are claimed together instead (`GroupClaimer`): one statement beats a read each.
      if (this.#taking === 1) {
        const stored = await this.deps.store.load(runId);
        if (!stored) return undefined;
        if (stored.status === 'active' && stored.lease?.state === 'released') {
          this.#keeper.claimOnCommit(runId, stored.lease.epoch);
          return { stored };
        }
        // Held, handed over or never leased: the claim says whether the recovery rule applies or the actors are adopted.
      }
      const claim = await this.#claimRun(runId);
      if (!claim) return undefined;
      this.#keeper.hold(runId, claim.run.lease!.epoch);
      return this.#found(claim);
    } finally {
      this.#taking--;
    }
  }

  /** A hosted run read back (after a commit of unknown outcome): a claiming commit found to have landed holds the run here. */
  async reload(runId: string): Promise<StoredRun | undefined> {
    const stored = await this.deps.store.load(runId);
    if (stored?.lease) this.#keeper.claimLanded(runId, stored.lease);
    return stored;
  }

  commitLease(runId: string): CommitLease | undefined {
    const lease = this.#keeper.commitLease(runId);
    // On a shared store a run commits only under its lease: one not held here (let go meanwhile) is refused, never written unfenced.
    if (!lease) throw new LeaseLostError([{ runId, holder: this.deps.owner.id, epoch: 0, stored: undefined }]);
    return lease;
  }

  ownNewerLease(run: HostedRun, refused: CommitLease, error: LeaseLostError): CommitLease | undefined {
    const { runId } = run;
    const stored = error.lost.find((l) => l.runId === runId)?.stored;
    const keeper = this.#keeper;
    // Not a claiming commit (its refusal is another host's claim), this very copy still hosted and
    // held here, and the store's lease taken by this host's own id.
    if (refused.claims !== undefined || this.runs.hosted(runId) !== run || !keeper.holds(runId) || !stored)
      return undefined;
    if (stored.state !== 'held' || stored.holder !== this.deps.owner.id || stored.epoch <= refused.epoch)
      return undefined;
    keeper.hold(runId, stored.epoch);
    return keeper.epochOf(runId) === stored.epoch ? keeper.commitLease(runId) : undefined;
  }

  claimCommitted(runId: string, lease: CommitLease): void {
    this.#keeper.committed(runId, lease);
  }

  lost(run: HostedRun, error: LeaseLostError): void {
    this.runs.remove(run);
    this.#keeper.forget(run.runId);
    this.deps.channels.log(
      run.runId,
      'warn',
      `no longer hosted here, its actors let go of their work for the new holder: ${error.message}`,
    );
  }

  holdNew(runId: string): CommitLease {
    const lease = this.#keeper.creationLease();
    this.#keeper.holdNew(runId, lease.epoch);
    return lease;
  }

  created(runId: string): void {
    this.#keeper.created(runId);
  }

  forget(runId: string): void {
    this.#keeper.forget(runId);
  }

  /** A run set aside elsewhere (a CLI's runtime restored nothing) is claimed first: the commit ending it is fenced like any other. */
  async hold(runId: string): Promise<void> {
    const keeper = this.#keeper;
    if (keeper.holds(runId)) return;
    const claim = await keeper.leases.claimRun(runId, this.deps.owner, {
      now: Date.now(),
      ttlMs: keeper.ttlMs,
      takeFrom: this.#deadHolders,
    });
    if (!claim) throw new UnknownRunError(runId);
    keeper.hold(runId, claim.run.lease!.epoch);
  }

  /** A claim of the run waits for this. */
  release(runId: string, wakeAt: number | null): Promise<void> {
    const keeper = this.#keeper;
    if (!keeper.holds(runId)) {
      keeper.forget(runId); // read to be woken and never committed to: its stored lease is still the released one
      return Promise.resolve();
    }
    const releasing = keeper
      .release([{ runId, wakeAt }], false)
      .catch((error: Error) =>
        this.deps.channels.log(runId, 'error', `releasing its lease failed (it runs out instead): ${error.message}`),
      )
      .finally(() => {
        if (this.#releasing.get(runId) === releasing) this.#releasing.delete(runId);
      });
    this.#releasing.set(runId, releasing);
    return releasing;
  }

  /** For a run this host claimed but cannot restore (set aside here), or one whose actors it ended. */
  async expire(runId: string): Promise<void> {
    await this.#keeper
      .expire([runId])
      .catch((error: Error) =>
        this.deps.channels.log(
          runId,
          'error',
          `letting go of its lease failed (it runs out instead): ${error.message}`,
        ),
      );
  }

  async handBack(runId: string, wakeAt: number | null): Promise<void> {
    await this.#keeper
      .release([{ runId, wakeAt }], true)
      .catch((error: Error) =>
        this.deps.channels.log(runId, 'error', `handing it back failed (its lease runs out instead): ${error.message}`),
      );
  }

  #backgroundFailed(what: string): (error: Error) => void {
    return (error) => {
      // A store closed under a runtime that was never closed (a test's abandoned runtime): nothing more to do.
      if (error instanceof StoreClosedError) return void Promise.all(this.#background.map((task) => task.stop()));
      this.deps.channels.log('', 'error', `${what} failed: ${error.message}`);
    };
  }

  /**
   * Claims the runs that must act now (see `StoreLeases.claimDue`) and hosts them, round after
   * round while rounds come back full. `first`: at start, when the runs a previous process of this
   * very host id held are taken at once too (it is gone: this is its restart).
   */
  async #sweep(first: boolean): Promise<void> {
    const { owner, clock } = this.deps;
    const keeper = this.#keeper;
    const holders = await keeper.leases.holders();
    this.#knownHolders = new Map(holders.map(({ owner }) => [owner.id, owner]));
    this.#deadHolders = deadHolders(holders, owner);
    // What a previous process of this host id holds is taken in the first round alone: once this
    // runtime has claimed runs, they are held under the same id, and a later round taking from it
    // would claim them again (raising their epoch behind the keeper's back, so their commits would
    // be refused). Runs it leaves (a round filled by expired leases first) are taken once they expire.
    const ownHeld = first ? holders.filter((h) => h.owner.id === owner.id).reduce((sum, h) => sum + h.runs, 0) : 0;
    let takeFrom = ownHeld > 0 ? [...this.#deadHolders, owner.id] : this.#deadHolders;
    let limit = SWEEP_LIMIT + ownHeld;
    const horizon = (this.deps.hibernation ?? DEFAULT_HIBERNATION).horizonMs;
    await this.#rereadSetAside();
    const seen = new Set<string>();
    for (;;) {
      if (this.#stopped) return;
      const claims = await keeper.leases.claimDue(owner, {
        now: Date.now(),
        dueBy: clock.now() + horizon,
        ttlMs: keeper.ttlMs,
        limit,
        takeFrom,
        // Set aside here, and unchanged since: claiming them again would only set them aside again.
        passOver: this.runs.passOver(),
      });
      let fresh = 0;
      for (const claim of claims) {
        if (seen.has(claim.run.runId)) continue;
        seen.add(claim.run.runId);
        fresh++;
        await this.#hostClaimed(claim, first);
      }
      // A round of only runs claimed already (a run set aside between rounds is passed over from then on) ends the sweep.
      if (claims.length < limit || fresh === 0) return;
      takeFrom = this.#deadHolders;
      limit = SWEEP_LIMIT;
    }
  }

  #setAsideReadAt = Date.now();

  /**
   * Once a lease period, each set-aside run is read back (a read, never a claim): one someone else
   * has moved on since (another host's newer registry migrated it) is forgotten (`setAsideAt`), and
   * so swept again. The store's sweep passes the others over by id.
   */
  async #rereadSetAside(): Promise<void> {
    if (Date.now() - this.#setAsideReadAt < this.#keeper.ttlMs) return;
    this.#setAsideReadAt = Date.now();
    for (const runId of this.runs.passOver()) {
      const stored = await this.deps.store.load(runId);
      if (stored) this.runs.setAsideAt(runId, stored.seq);
    }
  }

  async #hostClaimed(claim: Claim, atStart: boolean): Promise<void> {
    const keeper = this.#keeper;
    const { channels, owner } = this.deps;
    const { runId, machine } = claim.run;
    const epoch = claim.run.lease!.epoch;
    if (this.#stopped) return;
    // Claimed here again since (an event's claim, answered first): that claim's own path hosts it.
    // Held at this very epoch already: a commit of the hosted run was refused by this claim and
    // took its epoch (`ownNewerLease`), so the run in memory is ahead of the claimed row, not stale.
    const heldAt = keeper.epochOf(runId) ?? 0;
    if (heldAt > epoch || (heldAt === epoch && this.runs.hosted(runId))) return;
    const hosted = this.runs.hosted(runId);
    // Our own lease, run out while this host was too busy to renew it: claimed back by itself. No
    // other host could commit under that lease, so the copy in memory is the run, even when a
    // commit of it landed and its answer is still on the way (the claimed row is then ahead).
    const previous = claim.previous;
    const ownLease = previous?.state === 'held' && previous.holder === owner.id && previous.epoch === heldAt;
    if (hosted && (ownLease || hosted.committed.seq === claim.run.seq)) return void keeper.hold(runId, epoch);
    const loading = hosted ? undefined : this.runs.loading(runId);
    if (loading) {
      keeper.hold(runId, epoch);
      // An event's load under way hosts the run. Its own claim may have been refused before this
      // one (another host held the run until its lease ran out): then this claim hosts it, or it
      // would stay held here, renewed, with nothing in memory and no timer to fire.
      loading
        .catch(() => this.#hostClaimed(claim, atStart))
        .catch((error: Error) => channels.error(runId, { type: 'statewright.recover' }, error));
      return;
    }
    if (hosted) {
      // Another host committed meanwhile: what is in memory here is stale.
      this.runs.remove(hosted);
      hosted.lose(
        new LeaseLostError([{ runId, holder: owner.id, epoch: keeper.epochOf(runId) ?? 0, stored: claim.previous }]),
      );
    }
    keeper.hold(runId, epoch);
    if (this.runs.setAsideAt(runId, claim.run.seq))
      return claim.previous?.state === 'handedOver'
        ? this.handBack(runId, claim.run.wakeAt ?? null)
        : this.expire(runId);
    const found = this.#found(claim);
    if (atStart) await this.runs.restoreAtStart(runId, machine, found);
    else {
      await this.runs
        .host(runId, found)
        .catch((error: Error) => channels.error(runId, { type: 'statewright.recover' }, error));
      channels.log(
        runId,
        'info',
        found.adopted
          ? 'adopted: its previous host handed it over'
          : found.recovery
            ? `taken over from '${claim.previous?.holder}', whose lease ran out`
            : 'woken: its deadline is near',
      );
    }
  }

  /** What a claim says of the run's previous host: whether the recovery rule applies, or its actors are adopted. */
  #found(claim: Claim): Found {
    const stored = claim.run;
    const previous = claim.previous;
    if (previous?.state === 'handedOver') return { stored, adopted: true };
    if (previous?.state === 'released') return { stored };
    // Never leased: stored before this store had leases; the rule applies unless its owner is a live process (of an older build).
    if (!previous) {
      const owner = claim.previousOwner;
      return owner && isOtherOwnerAlive(owner, this.deps.owner)
        ? { stored }
        : { stored, recovery: { owner, alive: false } };
    }
    // Held: its holder is gone (the claim could take it). Named by the store, else as the sweep last saw it.
    const owner = claim.previousOwner ??
      this.#knownHolders.get(previous.holder) ?? { id: previous.holder, pid: 0, pidStart: 'unknown', host: 'unknown' };
    return { stored, recovery: { owner, alive: false } };
  }

  /**
   * `claimRun`, taking from the holders the last sweep found dead; refused by a holder that
   * sweep did not know of (or with no sweep: a CLI's runtime), it looks once whether that holder is
   * a dead process of this machine, and then takes the run at once instead of waiting out its lease.
   */
  async #claimRun(runId: string): Promise<Claim | undefined> {
    const claim = (takeFrom: readonly string[]) => this.#claimer.claim(runId, takeFrom);
    const takeFrom = this.#deadHolders;
    try {
      return await claim(takeFrom);
    } catch (error) {
      if (!(error instanceof RunHeldError) || takeFrom.includes(error.lease.holder)) throw error;
      // A sweep may have found the holder dead while the claim was out; else look once.
      if (!this.#deadHolders.includes(error.lease.holder)) {
        const holders = await this.#keeper.leases.holders();
        for (const { owner } of holders) this.#knownHolders.set(owner.id, owner);
        if (!deadHolders(holders, this.deps.owner).includes(error.lease.holder)) throw error;
      }
      return claim([...this.#deadHolders, error.lease.holder]);
    }
  }

  /** Renews every lease held here; a run the store says is lost stops being hosted here at once. */
  async #renew(): Promise<void> {
    const keeper = this.#keeper;
    for (const { runId, epoch } of await keeper.renewAll()) {
      const run = this.runs.hosted(runId);
      let stored;
      try {
        stored = (await this.deps.store.load(runId))?.lease;
      } catch {
        stored = undefined;
      }
      // Claimed here again while the store was read (the sweep took back a lease of ours that ran
      // out; the renewal, sent before, reached the store after it): that claim kept the run hosted
      // here, or hosts it. Dropped now, it would stay held and renewed with nothing in memory.
      if (keeper.holds(runId)) continue;
      const error = new LeaseLostError([{ runId, holder: this.deps.owner.id, epoch, stored }]);
      if (run && this.runs.hosted(runId) === run) {
        this.runs.remove(run);
        run.lose(error);
      }
      this.deps.channels.log(
        runId,
        'warn',
        `no longer hosted here, its actors let go of their work for the new holder: ${error.message}`,
      );
    }
  }

  /** Drops the resting runs from memory (see hibernation.ts) and releases their leases with their next deadline. */
  #hibernateResting(): void {
    const hibernation = this.deps.hibernation;
    if (!hibernation || this.#stopped) return;
    const now = this.deps.clock.now();
    for (const run of this.runs.all()) {
      if (!mayHibernate(run, now, hibernation)) continue;
      // In the same turn as the check: an event sent from now on claims the run anew.
      this.runs.remove(run);
      const wakeAt = run.nextDeadline();
      run.unload();
      void this.release(run.runId, wakeAt);
      this.deps.channels.log(
        run.runId,
        'debug',
        `hibernated: resting since ${new Date(run.restingSince() ?? now).toISOString()}${wakeAt === null ? '' : `, wakes by ${new Date(wakeAt).toISOString()}`}`,
      );
    }
  }
}
