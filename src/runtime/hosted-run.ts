import { createActor, type Actor, type AnyActorRef, type AnyStateMachine, type InspectionEvent } from 'xstate';
import { explainRejection } from '../graph/explain-rejection.js';
import { currentStateName } from '../graph/state-name.js';
import { actorsCreated, stopChildActor } from '../graph/xstate-internals.js';
import { CommitOutcomeUnknownError } from '../stores/store-errors.js';
import { CommitConflictError, LeaseLostError, type Commit, type CommitLease, type StoredRun } from '../stores/store.js';
import type { RunHandle, SendOptions } from '../actor-contract/run-handle.js';
import { InlineChildError, MachineError } from './errors.js';
import { inlineChildren } from './inline-children.js';
import { ownedEvent, type OwnedEvent } from './event-shape.js';
import { takeXStateEvents } from './xstate-events.js';
import { claimRefusal } from './hosting/lease-keeper.js';
import { Answer, AppliedBatch, MAX_BATCH, stepCommit, type Batch, type Outcome, type Queued } from './run-batch.js';
import { ACTIVE, applies, endedForGood, HANDED_OVER, STALE, STOPPED, UNLOADED, type RunPhase } from './run-phase.js';
import { committedStep, toRunSnapshot, type RunSnapshot } from './run-snapshot.js';
import { NO_OPTIONS, type RunContext } from './run-context.js';
import { SpawnedChildIds } from './spawned-child-ids.js';
import { StepEffects } from './step-effects.js';
import {
  DelayClock,
  hasArmedDelays,
  rearmAfterDelays,
  storedArmedDelays,
  withArmedDelays,
} from './timers/after-delays.js';
import { nextDeadline, onlyTimers } from './timers/next-deadline.js';

/** The runtime reads a machine's errors from its snapshot (see `activate`). */
const ignoreObservedError = () => {};

/**
 * One run in memory: its XState actor and its ordered queue. Events are applied one at a time in
 * the order sent; the steps of a batch are committed together, and only then are callers,
 * subscribers, the inspector and the actors' side effects told of them. If the commit fails, the
 * actor is put back to the last committed snapshot, so memory never runs ahead of the store.
 */
export class HostedRun {
  readonly handle: RunHandle;
  #phase: RunPhase = ACTIVE;
  #actor!: Actor<AnyStateMachine>;
  #logic!: AnyStateMachine;
  /** The clock the actor arms its `after` delays on, which knows when each is due. */
  #delays!: DelayClock;
  #committed!: StoredRun;
  #queue: Queued[] = [];
  /** The batches being applied, while there are any. */
  #draining: Promise<void> | undefined;
  readonly #effects: StepEffects;
  /** Runtime-clock time of the last activation or batch applied: how long the run has rested (`restingSince`). */
  #lastActive = 0;
  /**
   * Started and not yet committed: what its actors say meanwhile waits in the queue until the start
   * is durable (`settleActivation`), so the first step follows the committed start, as the log says.
   */
  #starting = false;
  /** The ids of the root's children spawned without one, by the step that spawns them. */
  #childIds = new SpawnedChildIds(undefined);

  constructor(
    readonly runId: string,
    readonly machine: string,
    private readonly context: RunContext<HostedRun>,
  ) {
    const effects = (this.#effects = new StepEffects(runId, context.channels));
    this.handle = {
      runId,
      machine,
      clock: context.clock,
      send: (event, options) => {
        // Unloaded or lost: the run lives on in the store (and maybe in another host); what its stopped actors still say is not for here.
        if (endedForGood(this.#phase)) return;
        let owned: OwnedEvent;
        try {
          owned = ownedEvent(event, context.clock);
        } catch (error) {
          return context.channels.error(runId, event, error as Error);
        }
        this.post(owned, options ?? NO_OPTIONS);
      },
      afterCommit: (effect) => effects.afterCommit(effect),
      afterStop: (effect) => effects.afterStop(effect),
      log: (level, message, data) => context.channels.log(runId, level, message, data),
      get handingOver() {
        return effects.handingOver;
      },
    };
  }

  get committed(): StoredRun {
    return this.#committed;
  }

  /** Creates the actor, at the initial state (`input`) or restored from a committed snapshot. */
  activate(committed: StoredRun, input: unknown, restore: boolean): void {
    this.#committed = committed;
    this.#lastActive = this.context.clock.now();
    this.#starting = !restore;
    const { logic, logger } = this.context.machines.logicFor(this.handle, this.machine);
    this.#logic = logic;
    this.#delays = new DelayClock(this.context.clock);
    // The start is step 0; a restored run's children have their ids, and its next step names the new ones.
    const childIds = (this.#childIds = new SpawnedChildIds(restore ? undefined : 0));
    this.#actor = createActor(this.#logic, {
      id: this.runId,
      logger,
      // `after` delays on the runtime's clock (their events are taken into the queue: xstate-events.ts).
      clock: this.#delays,
      ...(restore ? { snapshot: committed.snapshot as any } : { input }),
      inspect: actorsCreated(
        childIds.created,
        this.context.channels.inspect && ((event: InspectionEvent) => this.#effects.inspected(event)),
      ),
    });
    // A machine that throws leaves its snapshot in status 'error', which `initialRow` and `#apply`
    // turn into MachineError. Without an observer, XState would also rethrow the error from a
    // timer, where nothing can catch it and it ends the process.
    this.#actor.subscribe({ error: ignoreObservedError });
    takeXStateEvents(
      this.#actor,
      this.context.clock,
      (event, options) => this.post(event, options),
      (message) => this.context.channels.log(this.runId, 'error', message),
    );
    this.#delays.watch(this.#actor);
    this.#actor.start();
    if (restore)
      rearmAfterDelays(this.#actor, storedArmedDelays(committed.snapshot), committed.updatedAt, this.#delays);
  }

  /**
   * Why XState could not restore `committed` (a state the definition no longer has leaves the
   * restored actor in status 'error'), or undefined when it did.
   */
  restoreError(committed: StoredRun): unknown {
    const snapshot = this.#actor.getSnapshot();
    return snapshot.status === 'error' && committed.status !== 'error'
      ? (snapshot.error ?? new Error('the restored snapshot has status error'))
      : undefined;
  }

  /** The actor's snapshot right after `activate`: what the start commit stores. */
  initialRow(base: Omit<StoredRun, 'status' | 'state' | 'snapshot'>): StoredRun {
    const snapshot = this.#actor.getSnapshot();
    if (snapshot.status === 'error') throw new MachineError(this.runId, 'xstate.init', snapshot.error);
    const inline = inlineChildren(snapshot);
    if (inline.length) throw new InlineChildError(this.runId, 'xstate.init', inline);
    return {
      ...base,
      status: snapshot.status,
      state: currentStateName(snapshot),
      snapshot: withArmedDelays(this.#actor.getPersistedSnapshot(), this.#delays.armed(this.#actor)),
    };
  }

  /** The index keys of the actor's current snapshot: what the start commit stores with its row. */
  initialKeys(): Record<string, number | null> | undefined {
    return this.context.machines.indexKeys(this.machine, this.#actor.getSnapshot());
  }

  /** The earliest durable timer of the actor's current snapshot, or null: the run's `wakeAt`. */
  nextDeadline(): number | null {
    return nextDeadline(this.#actor.getSnapshot());
  }

  /**
   * Since when (runtime clock) the run has had nothing to do: active, nothing queued or being
   * applied, no side effect waiting for a commit, nothing running but durable timers. Undefined while busy.
   */
  restingSince(): number | undefined {
    if (this.#queue.length || this.#draining || !this.#effects.none || this.#phase !== ACTIVE) return undefined;
    // An armed `after` delay lives in XState's memory alone (no wakeAt): such a run stays in memory.
    return onlyTimers(this.#actor.getSnapshot()) && !hasArmedDelays(this.#actor) ? this.#lastActive : undefined;
  }

  /** The start (or restore) step is durable: run what the actors deferred until now. */
  settleActivation(committed: StoredRun | undefined): void {
    if (committed) this.#committed = committed;
    this.#effects.run();
    this.#starting = false;
    if (this.#queue.length) this.#startDraining();
  }

  /** Queues an event (see `ownedEvent`) and resolves once it is committed, or rejects with why not. */
  enqueue(event: OwnedEvent, options: SendOptions): Promise<RunSnapshot> {
    return new Promise((resolve, reject) => this.#push({ event, options, reject, resolve }));
  }

  /** Queues without a promise: a refusal goes to the runtime's error channel. */
  post(event: OwnedEvent, options: SendOptions): void {
    this.#push({ event, options, reject: undefined, resolve: undefined });
  }

  get isIdle(): boolean {
    return this.#queue.length === 0 && this.#draining === undefined;
  }

  /** Resolves when nothing is queued or being applied. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  // The three ways a run stops being hosted here. The store keeps the run as committed in each.

  /** stop: its actors stop and end what they run, or with `handOver` let go of it for the next host to adopt. */
  stop(handOver = false): void {
    this.#end(handOver ? HANDED_OVER : STOPPED);
  }

  /** unload: stops for good here: its actors stop, and what they still report is not taken. */
  unload(): void {
    this.#end(UNLOADED);
  }

  /**
   * lose: another host holds the run: its actors let go of their work without ending it (as in a
   * hand-over), drops what waits for a commit, refuses every caller with `error`. The new holder
   * decides what becomes of that work: its restored actors adopt it (a session's agent still
   * waiting for a person), or its recovery rule ends the run and they end it. Ending it here raced
   * the new holder when this host was only paused (SIGSTOP): on waking it stopped agents another
   * host had already adopted.
   */
  lose(error: Error): void {
    if (this.#phase.is === 'lost') return;
    this.#phase = { is: 'lost', error };
    const queued = this.#queue;
    this.#queue = [];
    for (const item of queued) this.#refuse(item, error);
    try {
      this.#effects.handingOverWhile(true, () => {
        this.#effects.endAll(this.#effects.discard());
        this.#actor?.stop();
      });
    } catch (stopError) {
      this.context.channels.log(
        this.runId,
        'error',
        `stopping the actors of a run lost to another host failed: ${(stopError as Error).message}`,
      );
    }
  }

  /** Stops the actors, for `stop` and `unload`. An unloaded or lost run stays so. */
  #end(phase: RunPhase): void {
    if (endedForGood(this.#phase)) return;
    this.#phase = phase;
    this.#effects.handingOverWhile(phase === HANDED_OVER, () => this.#actor?.stop());
  }

  /** The error every caller of a lost run is refused with, or undefined. */
  get #lostBy(): Error | undefined {
    return this.#phase.is === 'lost' ? this.#phase.error : undefined;
  }

  #refuse(item: Queued, error: Error): void {
    this.context.channels.refused(this.runId, item.event, error);
    if (item.reject) item.reject(error);
    else this.context.channels.error(this.runId, item.event, error);
  }

  #push(item: Queued): void {
    const lost = this.#lostBy;
    if (lost) {
      this.#refuse(item, lost);
      return;
    }
    this.#queue.push(item);
    if (!this.#starting) this.#startDraining();
  }

  #startDraining(): void {
    this.#draining ??= Promise.resolve().then(this.#drainQueue);
  }

  /** `#drain`, made once: a run whose events are each awaited starts draining at every event. */
  readonly #drainQueue = () => this.#drain();

  /**
   * This copy has no lease to commit under (a commit was refused for it, or the keeper had let the
   * run go): it is lost, and the hosting lets the lease go. Unless it was lost already meanwhile (a
   * renewal found the run lost, or a newer claim of this host replaced this copy): that path has
   * said so, and a newer copy's lease is its own.
   */
  #leaseLost(error: LeaseLostError): void {
    if (this.#phase.is === 'lost') return;
    this.lose(error);
    this.context.fence.lost(this, error);
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length) {
        this.#lastActive = this.context.clock.now();
        let items = this.#queue;
        if (items.length <= MAX_BATCH) this.#queue = [];
        else items = this.#queue.splice(0, MAX_BATCH);
        const batch: Batch = { items, answered: 0 };
        const committedBefore = this.#committed;
        // A store that fails to answer (a read error looking up a key, or reloading after a
        // conflict) must not leave callers waiting: everything unanswered in the batch is refused.
        try {
          await this.#send(batch);
        } catch (thrown) {
          const error = thrown as Error;
          for (let i = batch.answered; i < items.length; i++) this.#refuse(items[i]!, error);
          // No lease to commit under (the keeper let the run go before this batch): lost, as after a
          // refused commit. Put back and started again instead, its actors would cause the same
          // steps, be refused the same way, and spin.
          if (error instanceof LeaseLostError) this.#leaseLost(error);
          // Refused before anything was committed (a read failed): the events applied so far are
          // undone, so memory never runs ahead of the store, and the actors start again from the
          // committed snapshot (a durable timer whose event was refused fires again).
          if (this.#committed === committedBefore && applies(this.#phase)) await this.#rollBack(false);
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }

  /** The durable send, one batch: apply all → fence and commit → run effects → answer and notify. */
  async #send(batch: Batch): Promise<void> {
    const applying = this.#applyAll(batch.items);
    const applied = applying instanceof AppliedBatch ? applying : await applying;
    let failure: Error | undefined;
    if (applied.commits.length) {
      // Fenced by the lease each commit carries; awaited here, so the answers follow the commit with no hop between.
      try {
        try {
          await this.context.committer.commit(applied.commits);
        } catch (error) {
          await this.#commitAgain(error as Error, applied.commits, applied.lease);
        }
        this.#committed = applied.last;
        if (applied.lease?.claims !== undefined) this.context.fence.claimCommitted(this.runId, applied.lease);
      } catch (error) {
        failure = await this.#commitRefused(error as Error, applied.lease);
      }
    }
    if (!failure) this.#effects.run();
    this.#answer(batch, applied.outcomes, failure);
  }

  /**
   * A refused commit, made again under this host's own newer lease when that is what refused it
   * (`RunFence.ownNewerLease`); else refused. Again as often as that holds: with its renewals
   * stalled, the host's sweep may claim the run back once more while the commit is on its way, and
   * each time at a higher epoch, so this ends.
   */
  async #commitAgain(error: Error, commits: Commit[], lease: CommitLease | undefined): Promise<void> {
    let refused = error;
    let under = lease;
    for (;;) {
      const again =
        refused instanceof LeaseLostError && under && this.context.fence.ownNewerLease?.(this, under, refused);
      if (!again) throw refused;
      try {
        return await this.context.committer.commit(commits.map((commit) => ({ ...commit, lease: again })));
      } catch (next) {
        refused = next as Error;
        under = again;
      }
    }
  }

  /**
   * Applies each event to the actor in turn, under the lease the commits will be fenced by (taken
   * first: a run not held here applies nothing). A promise only when the store must be asked first
   * (a stale run, an idempotency key), so a plain batch reaches its commit in the same turn.
   */
  #applyAll(items: Queued[]): AppliedBatch | Promise<AppliedBatch> {
    if (this.#phase === STALE || items.some((item) => item.options.idempotencyKey !== undefined))
      return this.#applyAllAsking(items);
    const applied = new AppliedBatch(this.context.fence.commitLease(this.runId), this.#committed);
    for (const item of items) applied.applied(undefined, this.#apply(item, applied.last, applied.lease));
    return applied;
  }

  /** `#applyAll`, reading a stale run back first and asking the store for each key's earlier result. */
  async #applyAllAsking(items: Queued[]): Promise<AppliedBatch> {
    if (this.#phase === STALE) {
      // Failing here refuses the batch with the store's error, and the next batch tries again.
      const stored = await this.context.fence.reload(this.runId);
      this.#throwIfLost();
      if (this.#phase === STALE) this.#phase = ACTIVE;
      if (stored && stored.seq !== this.#committed.seq) this.#reactivate(stored);
    }
    const applied = new AppliedBatch(this.context.fence.commitLease(this.runId), this.#committed);
    for (const item of items) {
      const key = item.options.idempotencyKey;
      if (key !== undefined) {
        const earlier = applied.answerFor(key) ?? (await this.#storedAnswer(key));
        if (earlier) {
          applied.answered(earlier);
          continue;
        }
      }
      applied.applied(key, this.#apply(item, applied.last, applied.lease));
    }
    return applied;
  }

  /** The result of an event with `key` committed before, if any. */
  async #storedAnswer(key: string): Promise<Answer | undefined> {
    const earlier = await this.context.store.findIdempotent(this.runId, key);
    // Lost while the store was asked (a renewal found another holder): its actor is stopped.
    this.#throwIfLost();
    return earlier && new Answer(earlier.result as RunSnapshot);
  }

  #throwIfLost(): void {
    if (this.#phase.is === 'lost') throw this.#phase.error;
  }

  /** The batch's commit was refused: what its senders are refused with. */
  async #commitRefused(error: Error, lease: CommitLease | undefined): Promise<Error> {
    if (!(error instanceof LeaseLostError)) {
      await this.#rollBack(error instanceof CommitConflictError || error instanceof CommitOutcomeUnknownError);
      return error;
    }
    this.#leaseLost(error);
    // The run was read to be woken and another host claimed it first: its senders hear what that claim would have told them.
    return lease?.claims !== undefined ? claimRefusal(error) : error;
  }

  /** Answers each sender (its snapshot, or why not) and tells the subscribers of each committed step. */
  #answer(batch: Batch, outcomes: Outcome[], failure: Error | undefined): void {
    const wantsSteps = this.context.channels.wantsSteps;
    const { items } = batch;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const outcome = outcomes[i]!;
      batch.answered = i + 1;
      if (outcome instanceof Error) this.#refuse(item, outcome);
      else if (outcome instanceof Answer) {
        if (failure && outcome.ofBatch) this.#refuse(item, failure);
        else item.resolve?.(outcome.snapshot);
      } else if (failure) this.#refuse(item, failure);
      else if (wantsSteps || item.resolve) {
        const view = toRunSnapshot(outcome.run);
        if (wantsSteps) this.context.channels.committed(committedStep(outcome, view));
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
    this.#effects.beginStep();
    this.#childIds.step(last.seq + 1);
    try {
      this.#actor.send(event);
    } finally {
      this.#effects.endStep();
    }
    const after = this.#actor.getSnapshot();
    // XState returns the very same snapshot object when no transition was taken, and also when a
    // transition was taken that changes nothing (no target, no actions): only `can` tells them apart.
    if (after === before && !before.can(event)) {
      this.#effects.unseeStep();
      return options.ifAccepted ? undefined : explainRejection(before, event);
    }
    const inline = after.status === 'error' ? [] : inlineChildren(after);
    if (after.status === 'error' || inline.length) {
      const error = inline.length
        ? new InlineChildError(this.runId, event.type, inline)
        : new MachineError(this.runId, event.type, after.error);
      // The batch's earlier steps are still to be committed: only this step's stops are undone.
      this.#reactivate(last, this.#effects.stepStops());
      return error;
    }
    return stepCommit(item, last, this.#logic, after, {
      owner: this.context.owner,
      lease,
      keys: this.context.machines.indexKeys(this.machine, after),
      armedDelays: this.#delays.armed(this.#actor),
    });
  }

  /**
   * The commit failed: forget what the batch did in memory and return to the durable state. After a
   * conflict (another writer's newer row) or a commit of unknown outcome (the row may hold this
   * batch), the stored row is the truth; otherwise our last commit is. A stored row that cannot be
   * read now is read before the next batch, which then extends whatever the store holds.
   */
  async #rollBack(reload: boolean): Promise<void> {
    const stops = this.#effects.discard();
    let truth = this.#committed;
    if (reload) {
      try {
        truth = (await this.context.fence.reload(this.runId)) ?? this.#committed;
      } catch (error) {
        if (this.#phase === ACTIVE) this.#phase = STALE;
        this.context.channels.log(
          this.runId,
          'warn',
          `the run will be read again before its next event: reading it failed (${(error as Error).message})`,
        );
      }
    }
    this.#reactivate(truth, stops);
    this.#effects.run();
  }

  /** `rolledBack`: how the actors that the undone steps stopped end their work, run now with `handingOver`. */
  #reactivate(run: StoredRun, rolledBack: ReadonlyArray<() => void> = []): void {
    if (!applies(this.#phase)) {
      // Stopped for good meanwhile: the actors those steps stopped end or let go as all the others did.
      this.#effects.handingOverWhile(this.#phase === HANDED_OVER, () => this.#effects.endAll(rolledBack));
      return;
    }
    // The actors stopped here hand what they run (an agent process) over to the restored ones.
    this.#effects.handingOverWhile(true, () => {
      // Those the undone steps stopped too: the restored actors adopt what they ran, or start it anew.
      this.#effects.endAll(rolledBack);
      const { children } = this.#actor.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> };
      this.#actor.stop();
      // A machine that threw is stopped already, and XState leaves its children running: stop them
      // as its own `stopChild` does (`stop()` refuses a child).
      for (const id in children) if (children[id]) stopChildActor(children[id]);
    });
    this.#effects.discardDeferred();
    this.activate(run, undefined, true);
  }
}
