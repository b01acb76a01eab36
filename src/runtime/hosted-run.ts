import { createActor, type Actor, type AnyActorRef, type AnyStateMachine, type EventObject, type InspectionEvent } from 'xstate';
import { currentStateName, explainRejection } from '../graph/index.js';
import { stopChildActor } from '../graph/xstate-internals.js';
import { CommitOutcomeUnknownError } from '../stores/store-errors.js';
import { CommitConflictError, LeaseLostError, type Commit, type CommitLease, type EventRecord, type OwnerInfo, type StoredRun } from '../stores/store.js';
import type { Clock } from '../actor-contract/clock.js';
import { MachineError } from './errors.js';
import { ownedEvent, type OwnedEvent } from './event-shape.js';
import { LazySnapshotRow } from './lazy-snapshot-row.js';
import { claimRefusal } from './hosting/lease-keeper.js';
import { nextDeadline, onlyTimers } from './timers/next-deadline.js';
import type { GroupCommitter } from './group-commit.js';
import type { LogLevel, RunHandle, SendOptions } from '../actor-contract/run-handle.js';
import { toRunSnapshot, type CommittedStep, type RunSnapshot } from './run-snapshot.js';

/** What a hosted run needs from the runtime around it. */
export interface RunHost {
  readonly clock: Clock;
  readonly owner: OwnerInfo;
  readonly committer: GroupCommitter;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** The machine with this run's actors provided. */
  /** The run's machine, and the `logger` its root actor is created with, by which its actors find the logic built for the run. */
  logicFor(handle: RunHandle, machine: string): { logic: AnyStateMachine; logger: (...args: unknown[]) => void };
  findIdempotent(runId: string, key: string): Promise<{ seq: number; result: unknown } | undefined>;
  load(runId: string): Promise<StoredRun | undefined>;
  /** The run's index keys after a step (`Lifecycle.indexes`), or undefined when it declares none. */
  indexKeys(machine: string, snapshot: { value: unknown; context: unknown; status: string }): Record<string, number | null> | undefined;
  /** Whether anyone listens for committed steps (else no step object is built). */
  readonly wantsSteps: boolean;
  committed(step: CommittedStep): void;
  error(runId: string, event: EventObject, error: Error): void;
  /** Told of every refused event, whoever sent it, before the sender hears of it (`Runtime.lastRefusal`). */
  refused(runId: string, event: EventObject, error: Error): void;
  log(runId: string, level: LogLevel, message: string, data?: Record<string, unknown>): void;
  /** The lease this run's commits are fenced by (on a store with leases), or undefined. */
  commitLease(runId: string): CommitLease | undefined;
  /** A commit that also claimed the run (`CommitLease.claims`) is durable: the run is held here from now on. */
  claimCommitted(runId: string, lease: CommitLease): void;
  /** A commit was refused because another host holds the run now: the run has stopped itself (`lose`). */
  lost(run: HostedRun, error: LeaseLostError): void;
}

interface Queued {
  event: OwnedEvent;
  options: SendOptions;
  /** Undefined for fire-and-forget sends: no promise, no snapshot view to build. */
  resolve: ((snapshot: RunSnapshot) => void) | undefined;
  /** Undefined for sends whose refusal goes to the runtime's error channel (`RunHost.error`). */
  reject: ((error: Error) => void) | undefined;
}

/** An answer that needs no commit: the result of an earlier event with the same key, or a dropped event's unchanged run. */
class Answer {
  /** `ofBatch`: it repeats the key of a step of the same batch, so it stands only if that batch commits. */
  constructor(
    readonly snapshot: RunSnapshot,
    readonly ofBatch = false,
  ) {}
}

/**
 * What applying a queued event gave. Kept in an array of the batch's own rather than on the queued
 * item: items queued by a burst of sends are old by the time they are applied, and an old object
 * pointing at a step would keep the step (and its XState snapshot) alive through every minor GC.
 */
type Outcome = Commit | Error | Answer;

/** For sends without options: one shared object, not one per event. */
export const NO_OPTIONS: SendOptions = Object.freeze({});

/** The runtime reads a machine's errors from its snapshot (see `activate`). */
const ignoreObservedError = () => {};

/** Events applied per batch at most: bounds the memory a flood of sends can pin before commit. */
const MAX_BATCH = 1024;

/**
 * One run in memory: its XState actor and its ordered queue. Events are applied one at a time in
 * the order sent; the steps of a batch are committed together, and only then are callers,
 * subscribers, the inspector and the actors' side effects told of them. If the commit fails, the
 * actor is put back to the last committed snapshot, so memory never runs ahead of the store.
 */
export class HostedRun {
  readonly handle: RunHandle;
  #actor!: Actor<AnyStateMachine>;
  #logic!: AnyStateMachine;
  #committed!: StoredRun;
  #queue: Queued[] = [];
  #draining: Promise<void> | undefined;
  /** Side effects that actors asked to run once the current step is durable. */
  #deferred: Array<() => void> = [];
  /** How actors stopped by the steps not yet committed end their work (`RunHandle.afterStop`), in the order stopped. */
  #stops: Array<() => void> = [];
  /** True while an event is applied to the actor: an actor stopped then is stopped by that step. */
  #applying = false;
  /** How the run was stopped for good (`stop(handOver)`): what a step rolled back after that does with the actors it stopped. */
  #handOver = false;
  #inspections: InspectionEvent[] = [];
  #stopped = false;
  #unloaded = false;
  /** How many items of the batch being applied have been answered, so a late failure answers only the rest. */
  #answered = 0;
  /** Set while the actor is replaced by one restored from the committed snapshot (`RunHandle.handingOver`). */
  #handingOver = false;
  /** The stored row may be ahead of `#committed` (a commit of unknown outcome) and could not be read yet. */
  #stale = false;
  /** Runtime-clock time of the last activation or batch applied: how long the run has rested (`restingSince`). */
  #lastActive = 0;
  /** Why the run is no longer hosted here (another host holds it): what every later caller is refused with. */
  #lost: Error | undefined;

  constructor(
    readonly runId: string,
    readonly machine: string,
    private readonly host: RunHost,
  ) {
    const run = this;
    this.handle = {
      runId,
      machine,
      clock: host.clock,
      send: (event, options) => {
        // Unloaded: the run lives on in the store (and maybe in another host); what its stopped actors still say is not for here.
        if (this.#unloaded) return;
        let owned: OwnedEvent;
        try {
          owned = ownedEvent(event, host.clock);
        } catch (error) {
          return host.error(runId, event, error as Error);
        }
        this.post(owned, options ?? NO_OPTIONS);
      },
      afterCommit: (effect) => {
        this.#deferred.push(effect);
      },
      afterStop: (effect) => {
        if (this.#applying) this.#stops.push(effect);
        else this.#runEffect(effect, 'ending what a stopped actor ran');
      },
      log: (level, message, data) => host.log(runId, level, message, data),
      get handingOver() {
        return run.#handingOver;
      },
    };
  }

  get committed(): StoredRun {
    return this.#committed;
  }

  /** Creates the actor, at the initial state (`input`) or restored from a committed snapshot. */
  activate(committed: StoredRun, input: unknown, restore: boolean): void {
    this.#committed = committed;
    this.#lastActive = this.host.clock.now();
    const { logic, logger } = this.host.logicFor(this.handle, this.machine);
    this.#logic = logic;
    this.#actor = createActor(this.#logic, {
      id: this.runId,
      logger,
      ...(restore ? { snapshot: committed.snapshot as any } : { input }),
      ...(this.host.inspect && { inspect: (event: InspectionEvent) => void this.#inspections.push(event) }),
    });
    // A machine that throws leaves its snapshot in status 'error', which `initialRow` and `#apply`
    // turn into MachineError. Without an observer, XState would also rethrow the error from a
    // timer, where nothing can catch it and it ends the process.
    this.#actor.subscribe({ error: ignoreObservedError });
    this.#actor.start();
  }

  /**
   * Why XState could not restore `committed` (a state the definition no longer has leaves the
   * restored actor in status 'error'), or undefined when it did.
   */
  restoreError(committed: StoredRun): unknown {
    const snapshot = this.#actor.getSnapshot();
    return snapshot.status === 'error' && committed.status !== 'error' ? (snapshot.error ?? new Error('the restored snapshot has status error')) : undefined;
  }

  /** The actor's snapshot right after `activate`: what the start commit stores. */
  initialRow(base: Omit<StoredRun, 'status' | 'state' | 'snapshot'>): StoredRun {
    const snapshot = this.#actor.getSnapshot();
    if (snapshot.status === 'error') throw new MachineError(this.runId, 'xstate.init', snapshot.error);
    return { ...base, status: snapshot.status, state: currentStateName(snapshot), snapshot: this.#actor.getPersistedSnapshot() };
  }

  /** The index keys of the actor's current snapshot: what the start commit stores with its row. */
  initialKeys(): Record<string, number | null> | undefined {
    return this.host.indexKeys(this.machine, this.#actor.getSnapshot());
  }

  /** The earliest durable timer of the actor's current snapshot, or null: the run's `wakeAt`. */
  nextDeadline(): number | null {
    return nextDeadline(this.#actor.getSnapshot());
  }

  /**
   * Since when (runtime clock) the run has had nothing to do: nothing queued or being applied, no
   * side effect waiting for a commit, nothing running but durable timers. Undefined while busy.
   */
  restingSince(): number | undefined {
    if (this.#queue.length || this.#draining || this.#deferred.length || this.#stops.length || this.#stale || this.#stopped) return undefined;
    return onlyTimers(this.#actor.getSnapshot()) ? this.#lastActive : undefined;
  }

  /** The start (or restore) step is durable: release what the actors deferred until now. */
  settleActivation(committed: StoredRun | undefined): void {
    if (committed) this.#committed = committed;
    this.#release();
  }

  /** Queues an event (see `ownedEvent`) and resolves once it is committed, or rejects with why not. */
  enqueue(event: OwnedEvent, options: SendOptions): Promise<RunSnapshot> {
    return new Promise((resolve, reject) => this.#push({ event, options, reject, resolve }));
  }

  /** Queues without a promise: a refusal goes to the runtime's error channel. */
  post(event: OwnedEvent, options: SendOptions): void {
    this.#push({ event, options, reject: undefined, resolve: undefined });
  }

  #refuse(item: Queued, error: Error): void {
    this.host.refused(this.runId, item.event, error);
    if (item.reject) item.reject(error);
    else this.host.error(this.runId, item.event, error);
  }

  #push(item: Queued): void {
    if (this.#lost) return this.#refuse(item, this.#lost);
    this.#queue.push(item);
    this.#draining ??= Promise.resolve().then(() => this.#drain());
  }

  get isIdle(): boolean {
    return this.#queue.length === 0 && this.#draining === undefined;
  }

  /** Resolves when nothing is queued or being applied. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** `handOver`: the actors let go of what they run (an agent process) for the next host to adopt, instead of ending it. */
  stop(handOver = false): void {
    this.#stopped = true;
    this.#handOver = handOver;
    this.#handingOver = handOver;
    try {
      this.#actor?.stop();
    } finally {
      this.#handingOver = false;
    }
  }

  /** Stops the run here for good: its actors' reports are no longer taken. The store keeps it as committed. */
  unload(): void {
    this.#unloaded = true;
    this.stop();
  }

  /**
   * Another host holds the run now (its lease ran out and was claimed): stop hosting it at once.
   * Its actors are stopped and what they run is ended (the new holder's recovery rule has already
   * failed or orphaned it, so nothing may be left to adopt from here), side effects waiting for a
   * commit never run, and every queued and later caller is refused with `error`. It never commits again.
   */
  lose(error: Error): void {
    if (this.#lost) return;
    this.#lost = error;
    this.#unloaded = true;
    this.#stopped = true;
    const queued = this.#queue;
    this.#queue = [];
    for (const item of queued) this.#refuse(item, error);
    this.#deferred = [];
    this.#inspections = [];
    const stops = this.#stops;
    this.#stops = [];
    for (const effect of stops) this.#runEffect(effect, 'ending what a stopped actor ran');
    try {
      this.#actor?.stop();
    } catch (stopError) {
      this.host.log(this.runId, 'error', `stopping the actors of a run lost to another host failed: ${(stopError as Error).message}`);
    }
  }

  /**
   * This copy has no lease to commit under (a commit was refused for it, or the keeper had let the
   * run go): it stops, and the runtime lets the lease go. Unless it was lost already meanwhile (a
   * renewal found the run lost, or a newer claim of this host replaced this copy): that path has
   * said so, and a newer copy's lease is its own.
   */
  #leaseLost(error: LeaseLostError): void {
    if (this.#lost) return;
    this.lose(error);
    this.host.lost(this, error);
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length) {
        this.#lastActive = this.host.clock.now();
        let batch = this.#queue;
        if (batch.length <= MAX_BATCH) this.#queue = [];
        else batch = this.#queue.splice(0, MAX_BATCH);
        // A store that fails to answer (a read error looking up a key, or reloading after a
        // conflict) must not leave callers waiting: everything unsettled in the batch is refused.
        this.#answered = 0;
        const committedBefore = this.#committed;
        await this.#applyBatch(batch).catch(async (error: Error) => {
          for (let i = this.#answered; i < batch.length; i++) this.#refuse(batch[i]!, error);
          // No lease to commit under (the keeper let the run go before this batch): lost, as after a
          // refused commit. Put back and started again instead, its actors would cause the same
          // steps, be refused the same way, and spin.
          if (error instanceof LeaseLostError) this.#leaseLost(error);
          // Refused before anything was committed (a read failed): the events applied so far are
          // undone, so memory never runs ahead of the store, and the actors start again from the
          // committed snapshot (a durable timer whose event was refused fires again).
          if (this.#committed === committedBefore && !this.#stopped) await this.#rollBack(false);
        });
      }
    } finally {
      this.#draining = undefined;
    }
  }

  async #applyBatch(batch: Queued[]): Promise<void> {
    if (this.#stale) {
      // Failing here refuses the batch with the store's error, and the next batch tries again.
      const stored = await this.host.load(this.runId);
      if (this.#lost) throw this.#lost;
      this.#stale = false;
      if (stored && stored.seq !== this.#committed.seq) this.#reactivate(stored);
    }
    const outcomes: Outcome[] = [];
    const commits: Commit[] = [];
    const lease = this.host.commitLease(this.runId);
    let keys: Map<string, Commit> | undefined;
    let last = this.#committed;

    for (const item of batch) {
      const key = item.options.idempotencyKey;
      if (key !== undefined) {
        const inBatch = keys?.get(key);
        const earlier = inBatch ? { result: inBatch.result } : await this.host.findIdempotent(this.runId, key);
        // Lost while the store was asked (a renewal found another holder): its actor is stopped.
        if (this.#lost) throw this.#lost;
        if (earlier) {
          outcomes.push(new Answer(earlier.result as RunSnapshot, inBatch !== undefined));
          continue;
        }
      }
      const outcome = this.#apply(item, last, lease);
      if (outcome === undefined) {
        outcomes.push(new Answer(toRunSnapshot(last))); // dropped: not accepted, and allowed not to be
      } else {
        outcomes.push(outcome);
        if (outcome instanceof Error) continue;
        if (key !== undefined) (keys ??= new Map()).set(key, outcome);
        commits.push(outcome);
        last = outcome.run;
      }
    }

    let failure: Error | undefined;
    if (commits.length) {
      try {
        await this.host.committer.commit(commits);
        this.#committed = last;
        if (lease?.claims !== undefined) this.host.claimCommitted(this.runId, lease);
      } catch (error) {
        failure = error as Error;
        if (error instanceof LeaseLostError) {
          this.#leaseLost(error);
          // The run was read to be woken and another host claimed it first: its senders hear what that claim would have told them.
          if (lease?.claims !== undefined) failure = claimRefusal(error);
        } else await this.#rollBack(error instanceof CommitConflictError || error instanceof CommitOutcomeUnknownError);
      }
    }
    if (!failure) this.#release();

    const wantsSteps = this.host.wantsSteps;
    for (let i = 0; i < batch.length; i++) {
      const item = batch[i]!;
      const outcome = outcomes[i]!;
      this.#answered = i + 1;
      if (outcome instanceof Error) this.#refuse(item, outcome);
      else if (outcome instanceof Answer) {
        if (failure && outcome.ofBatch) this.#refuse(item, failure);
        else item.resolve?.(outcome.snapshot);
      } else if (failure) this.#refuse(item, failure);
      else if (wantsSteps || item.resolve) {
        const { run, event } = outcome;
        const view = toRunSnapshot(run);
        if (wantsSteps) this.host.committed({ runId: this.runId, machine: this.machine, seq: run.seq, event: event!.event, before: event!.before, after: event!.after, snapshot: view });
        item.resolve?.(view);
      }
    }
  }

  /** Applies one event to the actor: the commit it needs, undefined when dropped, or why it was refused. */
  #apply(item: Queued, last: StoredRun, lease: CommitLease | undefined): Commit | Error | undefined {
    const { event, options } = item;
    const before = this.#actor.getSnapshot();
    // A finished actor ignores everything (with a console warning); refuse it here instead.
    if (before.status !== 'active') return options.ifAccepted ? undefined : explainRejection(before, event);
    const shown = this.#inspections.length;
    const stopped = this.#stops.length;
    this.#applying = true;
    try {
      this.#actor.send(event);
    } finally {
      this.#applying = false;
    }
    const after = this.#actor.getSnapshot();
    // XState returns the very same snapshot object when no transition was taken, and also when a
    // transition was taken that changes nothing (no target, no actions): only `can` tells them apart.
    if (after === before && !before.can(event)) {
      this.#inspections.length = shown; // the inspector sees only what is committed
      return options.ifAccepted ? undefined : explainRejection(before, event);
    }
    if (after.status === 'error') {
      const error = new MachineError(this.runId, event.type, after.error);
      // The batch's earlier steps are still to be committed: only this step's stops are undone.
      this.#reactivate(last, this.#stops.splice(stopped));
      return error;
    }
    const seq = last.seq + 1;
    const state = currentStateName(after);
    const run = new LazySnapshotRow(last, this.#logic, after, { status: after.status, state, seq, owner: this.host.owner, updatedAt: event.at });
    const record: EventRecord = { runId: this.runId, seq, event, at: event.at, before: last.state, after: state };
    if (options.actor !== undefined || options.reason !== undefined || options.idempotencyKey !== undefined) {
      const extra = record as { actor?: string; reason?: string; idempotencyKey?: string };
      if (options.actor !== undefined) extra.actor = options.actor;
      if (options.reason !== undefined) extra.reason = options.reason;
      if (options.idempotencyKey !== undefined) extra.idempotencyKey = options.idempotencyKey;
    }
    const keys = this.host.indexKeys(this.machine, after);
    const commit: { -readonly [K in keyof Commit]: Commit[K] } = { run, event: record, expectedSeq: last.seq };
    if (options.idempotencyKey !== undefined) commit.result = toRunSnapshot(run);
    if (keys) commit.keys = keys;
    commit.wakeAt = nextDeadline(after);
    if (lease) commit.lease = lease;
    return commit;
  }

  /**
   * The commit failed: forget what the batch did in memory and return to the durable state. After a
   * conflict (another writer's newer row) or a commit of unknown outcome (the row may hold this
   * batch), the stored row is the truth; otherwise our last commit is. A stored row that cannot be
   * read now is read before the next batch, which then extends whatever the store holds.
   */
  async #rollBack(reload: boolean): Promise<void> {
    this.#deferred = [];
    const stops = this.#stops;
    this.#stops = [];
    this.#inspections = [];
    let truth = this.#committed;
    if (reload) {
      try {
        truth = (await this.host.load(this.runId)) ?? this.#committed;
      } catch (error) {
        this.#stale = true;
        this.host.log(this.runId, 'warn', `the run will be read again before its next event: reading it failed (${(error as Error).message})`);
      }
    }
    this.#reactivate(truth, stops);
    this.#release();
  }

  /** `rolledBack`: how the actors that the undone steps stopped end their work, run now with `handingOver`. */
  #reactivate(run: StoredRun, rolledBack: ReadonlyArray<() => void> = []): void {
    if (this.#stopped) {
      // Stopped for good meanwhile: the actors those steps stopped end or let go as all the others did.
      this.#handingOver = this.#handOver;
      try {
        for (const effect of rolledBack) this.#runEffect(effect, 'ending what a stopped actor ran');
      } finally {
        this.#handingOver = false;
      }
      return;
    }
    // The actors stopped here hand what they run (an agent process) over to the restored ones.
    this.#handingOver = true;
    try {
      // Those the undone steps stopped too: the restored actors adopt what they ran, or start it anew.
      for (const effect of rolledBack) this.#runEffect(effect, 'ending what a stopped actor ran');
      const { children } = this.#actor.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> };
      this.#actor.stop();
      // A machine that threw is stopped already, and XState leaves its children running: stop them
      // as its own `stopChild` does (`stop()` refuses a child).
      for (const id in children) if (children[id]) stopChildActor(children[id]);
    } finally {
      this.#handingOver = false;
    }
    this.#deferred = [];
    this.#inspections = [];
    this.activate(run, undefined, true);
  }

  #runEffect(effect: () => void, what: string): void {
    try {
      effect();
    } catch (error) {
      this.host.log(this.runId, 'error', `${what} failed: ${(error as Error).message}`);
    }
  }

  /** Runs the deferred side effects and shows the inspector what is now durable. */
  #release(): void {
    // What the committed steps stopped ends before what they started begins.
    const stops = this.#stops;
    this.#stops = [];
    for (const effect of stops) this.#runEffect(effect, 'ending what a stopped actor ran');
    const effects = this.#deferred;
    this.#deferred = [];
    for (const effect of effects) this.#runEffect(effect, 'a deferred side effect');
    if (this.host.inspect) {
      const inspections = this.#inspections;
      this.#inspections = [];
      try {
        for (const event of inspections) this.host.inspect(event);
      } catch (error) {
        // The step is committed: a failing inspector must not make it look refused.
        this.host.log(this.runId, 'error', `the inspector threw: ${(error as Error).message}`);
      }
    }
  }
}
