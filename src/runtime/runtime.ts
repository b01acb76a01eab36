import { randomUUID } from 'node:crypto';
import type { AnyStateMachine, EventObject, InspectionEvent, Observer } from 'xstate';
import type { Lifecycle, Lifecycles } from '../../machines/lifecycle.js';
import { StoreFullError, StoreReadOnlyError } from '../stores/store-errors.js';
import { StoreClosedError } from '../stores/store-errors.js';
import { CommitConflictError, LeaseLostError, RunHeldError, type Claim, type EventRecord, type OwnerInfo, type RunFilter, type Store, type StoredRun } from '../stores/store.js';
import { systemClock, type Clock } from '../actor-contract/clock.js';
import { InvalidArgumentError, RunExistsError, RunNotSetAsideError, RunSetAsideError, RuntimeClosedError, UnknownMachineError, UnknownRunError } from './errors.js';
import { ownedEvent } from './event-shape.js';
import { GroupClaimer } from './hosting/group-claim.js';
import { GroupCommitter } from './group-commit.js';
import { HostedRun, NO_OPTIONS, type RunHost } from './hosted-run.js';
import { checkFilter, checkLimits, checkRunId, checkSendOptions, ownedInput, type PayloadLimits } from './call-arguments.js';
import { endedRunCommit } from './end-run.js';
import { checkStoredId, restoreProblem, setAsideEntry, setAsideReason, type RestoreStage, type SetAsideRun } from './set-aside.js';
import { indexFingerprint, indexKeys, scanByIndex, UnknownIndexKeyError } from './index-keys.js';
import { migrate } from './migrate.js';
import { DEFAULT_HIBERNATION, hibernationOptions, mayHibernate, type Hibernation } from './hosting/hibernation.js';
import { LeaseKeeper, leaseTtl } from './hosting/lease-keeper.js';
import { deadHolders, isOtherOwnerAlive, openOwners } from './hosting/live-owners.js';
import { periodic, type Periodic } from './hosting/periodic.js';
import { logicWithActors, machineActors, runLogger, type ActorsByMachine } from './machine-actors.js';
import { resolveOwner } from './owner.js';
import type { LogLevel, MachineActors, RunHandle, SendOptions } from '../actor-contract/run-handle.js';
import { toRunSnapshot, type CommittedStep, type RunSnapshot } from './run-snapshot.js';
import { refusal, type Refusal } from './refusal.js';

/** Any object with a string `type`: the runtime checks the rest (`MalformedEventError`). */
type RunEventLike = { type: string };

export interface RuntimeOptions {
  store: Store;
  /** The lifecycles this runtime hosts, usually the registry `lifecycles` from `statewright/machines`. */
  machines: Lifecycles;
  clock?: Clock;
  /**
   * Real implementations of the actors machines name, by machine then by actor name
   * (`{ session: { agent }, codon: { agent, rigSetup } }`), so two machines may name an actor alike
   * and one runtime still hosts both; `deadline` is built in for every machine. Each lifecycle's
   * `actors` (`sessionLifecycle(...).actors`) is such a map, to spread in with the others.
   */
  actors?: MachineActors;
  /** Who this runtime is, recorded on every commit. Defaults to this process on this host. */
  owner?: string | Partial<OwnerInfo>;
  /** Receives XState inspection events once the step they belong to is committed: pass `inspector.inspect` from `@statelyai/inspect`. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Restore every non-terminal run on start (default true). */
  recover?: boolean;
  /** Listens from the start, so errors while restoring runs are caught too (same as `onError`). */
  onError?: (error: RuntimeError) => void;
  /** Listens from the start (same as `onLog`). */
  onLog?: (entry: LogEntry) => void;
  /**
   * The largest event a caller may send and the largest input a run may start with, as JSON bytes
   * (default 1 MiB each). Larger is refused with `PayloadTooLargeError` before anything is queued.
   */
  limits?: Partial<PayloadLimits>;
  /**
   * Leases, on a store that has them (`Store.leases`): how long a host's hold on a run lasts
   * without a heartbeat (default 10 000 ms). A host that stops renewing (dead, paused, cut off)
   * loses its runs to another host's sweep after this long. The holder is `owner`'s id.
   */
  leases?: { ttlMs?: number };
  /**
   * Hibernation, on a store with leases: a run with nothing queued, no live actor but deadline
   * timers, and no deadline within `horizonMs` (default 5 000 ms) is dropped from memory after
   * `afterIdleMs` idle (default 30 000 ms, on the runtime's clock) and woken by its next event or
   * its deadline. `false` keeps every hosted run in memory.
   */
  hibernate?: false | { afterIdleMs?: number; horizonMs?: number };
}

/** Runs claimed per sweep round; the sweep repeats while rounds come back full. */
const SWEEP_LIMIT = 100;

/** How a run hosted from the store was found: what its recovery rule is told, if it applies. */
interface Found {
  readonly stored: StoredRun;
  /** The rule applies: the previous owner is gone (crashed, cut off, or closed without hand-over). */
  readonly recovery?: { owner: OwnerInfo | undefined; alive: boolean };
  /** Handed over by a graceful stop: its actors are adopted, the rule is skipped. */
  readonly adopted?: boolean;
}

export interface RuntimeError {
  readonly runId: string;
  readonly event: EventObject;
  readonly error: Error;
}

export interface LogEntry {
  readonly runId: string;
  readonly level: LogLevel;
  readonly message: string;
  readonly data?: Record<string, unknown>;
}

export interface Runtime {
  /** Starts a run of a registered machine; resolves once its initial snapshot is committed. */
  start(machine: string, options?: { id?: string; input?: unknown }): Promise<RunSnapshot>;
  /** Fire and forget: queues the event; a refusal reaches `onError` listeners. */
  send<E extends RunEventLike>(runId: string, event: E, options?: SendOptions): void;
  /** Queues the event and resolves with the run's snapshot once it is committed, or rejects with why not. */
  dispatch<E extends RunEventLike>(runId: string, event: E, options?: SendOptions): Promise<RunSnapshot>;
  /** Resolves when every queued event of every run has been applied and committed (or refused). */
  flush(): Promise<void>;
  /** The last committed snapshot of a run. */
  getSnapshot(runId: string): Promise<RunSnapshot>;
  list(filter?: RunFilter): Promise<RunSnapshot[]>;
  /**
   * The runs of `machine` listed under one of its index keys (`Lifecycle.indexes`), in the key's
   * order then by run id: from the store's index when it has one (SQLite), else by a scan.
   */
  listByIndex(machine: string, key: string, options?: { limit?: number }): Promise<RunSnapshot[]>;
  /** The audit trail: every applied event with time, actor, reason and the states around it. */
  history(runId: string): Promise<EventRecord[]>;
  /** Called after each commit, never before. Returns the unsubscribe function. */
  subscribe(listener: (step: CommittedStep) => void): () => void;
  onError(listener: (error: RuntimeError) => void): () => void;
  onLog(listener: (entry: LogEntry) => void): () => void;
  /** Writes an entry to the log channel, as an actor's `run.log` does. */
  log(runId: string, level: LogLevel, message: string, data?: Record<string, unknown>): void;
  readonly owner: OwnerInfo;
  readonly clock: Clock;
  readonly store: Store;
  /** The lifecycles this runtime hosts, as `createRuntime({ machines })` gave them. */
  readonly machines: Lifecycles;
  /** The last event this runtime refused for the run, and why (in memory: forgotten when the runtime closes). */
  lastRefusal(runId: string): Refusal | undefined;
  /**
   * The runs this runtime restored when it started (`recover`), whose lifecycle's recovery hook it
   * applied: for a lifecycle's service to finish their recovery when it attaches (a session daemon
   * stops the agents of sessions it failed as orphaned).
   */
  readonly restoredAtStart: ReadonlyArray<{ readonly runId: string; readonly machine: string; readonly adopted?: boolean }>;
  /**
   * Applies what is queued for the run, stops its actors and forgets it here; the store keeps it
   * as committed, and the next event hosts it again from there (a view that another process has
   * moved on from is so refreshed). For a service that stops what it started without closing the runtime.
   */
  unload(runId: string): Promise<void>;
  /**
   * Applies what is queued, stops every run's actors. Does not close the store. With `handOver`,
   * the actors let go of what they run instead of ending it (an agent process keeps running), so
   * the next host that restores the runs adopts it: a graceful restart, as `statewright serve` does.
   */
  close(options?: { handOver?: boolean }): Promise<void>;
  /**
   * The runs this runtime found it cannot restore (see `SetAsideRun`), each with its reason, in the
   * order found. They take no events (`RunSetAsideError`); every other run goes on.
   */
  setAside(): SetAsideRun[];
  /**
   * Ends a run that cannot be restored, by a person: the audit trail records `actor` and `reason`,
   * its snapshot is kept as stored with status `stopped`, and it is no longer set aside. A run this
   * runtime can restore is refused (`RunNotSetAsideError`): it is moved by its own events.
   */
  endSetAside(runId: string, by: { actor: string; reason: string }): Promise<RunSnapshot>;
}

/** Creates a runtime on `store` and, unless told not to, restores every non-terminal run in it. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const runtime = new DurableRuntime(options);
  try {
    await runtime.syncIndexes();
    // Renewing from before the first sweep: a sweep that takes over many runs may last longer than
    // a lease, and a claim left to run out meanwhile would be taken again behind this runtime's back.
    runtime.keepRenewing();
    if (options.recover !== false) await runtime.recoverAll();
  } catch (error) {
    await runtime.close().catch(() => {});
    throw error;
  }
  runtime.keepSweeping(options.recover !== false);
  return runtime;
}

class DurableRuntime implements Runtime {
  readonly store: Store;
  readonly clock: Clock;
  readonly owner: OwnerInfo;
  readonly #machines: Lifecycles;
  readonly #lastRefusals = new Map<string, Refusal>();
  /** By machine, then by actor name: what `createRuntime({ actors })` gave, plus the built-in `deadline`. */
  readonly #actors: ActorsByMachine;
  readonly #runs = new Map<string, HostedRun>();
  /** Runs being loaded from the store, so concurrent first sends share one load. */
  readonly #loading = new Map<string, Promise<HostedRun>>();
  /** Machines whose stored index could not be brought up to date (a read-only store, a full disk): listed by scanning. */
  readonly #staleIndexes = new Set<string>();
  readonly #subscribers = new Set<(step: CommittedStep) => void>();
  readonly #errorListeners = new Set<(error: RuntimeError) => void>();
  readonly #logListeners = new Set<(entry: LogEntry) => void>();
  readonly #host: RunHost;
  readonly restoredAtStart: Array<{ readonly runId: string; readonly machine: string; readonly adopted?: boolean }> = [];
  readonly #setAside = new Map<string, SetAsideRun>();
  readonly #limits: PayloadLimits;
  /** The leases this runtime holds, on a store with leases; undefined on a store only one host uses. */
  readonly #keeper: LeaseKeeper | undefined;
  /** The claims of sleeping runs that events wake, sent together when they come together. */
  readonly #claimer: GroupClaimer | undefined;
  readonly #hibernation: Hibernation | undefined;
  /** Leases being released (a run gone to sleep, unloaded): a claim of the run waits for it. */
  readonly #releasing = new Map<string, Promise<void>>();
  /** Runs being found for the events sent to them (`#find`): one alone is read and claimed by its commit. */
  #finding = 0;
  /** The holders the last sweep found dead (processes of this machine that are gone): claims take from them. */
  #deadHolders: string[] = [];
  /** Every holder the last sweep saw, by id: who a run's previous holder was, for its recovery rule. */
  #knownHolders = new Map<string, OwnerInfo>();
  #background: Periodic[] = [];
  #closed = false;

  constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.owner = resolveOwner(options.owner);
    this.#machines = options.machines;
    this.#actors = machineActors(options.machines, options.actors ?? {});
    this.#limits = checkLimits(options.limits);
    if (options.onError) this.#errorListeners.add(options.onError);
    if (options.onLog) this.#logListeners.add(options.onLog);
    const hibernation = hibernationOptions(options.hibernate);
    this.#keeper = this.store.leases ? new LeaseKeeper(this.store.leases, this.owner, leaseTtl(options.leases)) : undefined;
    this.#claimer = this.#keeper && new GroupClaimer(this.#keeper.leases, this.owner, this.#keeper.ttlMs);
    this.#hibernation = this.#keeper && hibernation;
    openOwners.add(this.owner.id);
    const inspect = options.inspect && (typeof options.inspect === 'function' ? options.inspect : (e: InspectionEvent) => (options.inspect as Observer<InspectionEvent>).next?.(e));
    const subscribers = this.#subscribers;
    this.#host = {
      get wantsSteps() {
        return subscribers.size > 0;
      },
      clock: this.clock,
      owner: this.owner,
      committer: new GroupCommitter(this.store),
      inspect,
      logicFor: (handle, machine) => this.#logicFor(handle, machine),
      indexKeys: (machine, snapshot) => indexKeys(this.#lifecycle(machine), snapshot),
      findIdempotent: (runId, key) => this.store.findIdempotent(runId, key),
      load: (runId) => this.#reload(runId),
      committed: (step) => this.#notify(step),
      error: (runId, event, error) => this.#reportError({ runId, event, error }),
      refused: (runId, event, error) => this.#lastRefusals.set(runId, refusal(event, error, this.clock.now())),
      log: (runId, level, message, data) => this.#log({ runId, level, message, ...(data && { data }) }),
      commitLease: (runId) => this.#commitLease(runId),
      claimCommitted: (runId, lease) => this.#keeper?.committed(runId, lease),
      lost: (run, error) => this.#lost(run, error),
    };
  }

  get machines(): Lifecycles {
    return this.#machines;
  }

  lastRefusal(runId: string): Refusal | undefined {
    return this.#lastRefusals.get(runId);
  }

  async start(machine: string, options: { id?: string; input?: unknown } = {}): Promise<RunSnapshot> {
    this.#assertOpen();
    const lifecycle = this.#lifecycle(machine);
    const runId = options.id === undefined ? randomUUID() : checkRunId(options.id);
    const input = ownedInput(options.input, this.#limits.inputBytes);
    if (this.#runs.has(runId) || this.#loading.has(runId)) throw new RunExistsError(runId);
    const run = new HostedRun(runId, machine, this.#host);
    const now = this.clock.now();
    const base = { runId, machine, version: lifecycle.version, input: input ?? null, seq: 0, owner: this.owner, createdAt: now, updatedAt: now };
    const placeholder: StoredRun = { ...base, status: 'active', state: '', snapshot: null };
    // Hosted before the commit so events its actors send while starting queue behind it.
    const ready = (async () => {
      run.activate(placeholder, input, false);
      let row: StoredRun;
      // Held before the commit, so the steps its actors cause at once are fenced by it too.
      const lease = this.#keeper?.creationLease();
      if (lease) this.#keeper!.holdNew(runId, lease.epoch);
      try {
        row = run.initialRow(base);
        const keys = run.initialKeys();
        await this.#host.committer.commit([{ run: row, expectedSeq: undefined, wakeAt: run.nextDeadline(), ...(keys && { keys }), ...(lease && { lease }) }]);
        if (lease) this.#keeper!.created(runId);
      } catch (error) {
        if (lease) this.#keeper!.forget(runId);
        run.stop();
        throw error instanceof CommitConflictError ? new RunExistsError(runId) : error;
      }
      run.settleActivation(row);
      return run;
    })();
    this.#loading.set(runId, ready);
    try {
      await ready;
      this.#runs.set(runId, run);
    } finally {
      this.#loading.delete(runId);
    }
    const snapshot = toRunSnapshot(run.committed);
    this.#notify({ runId, machine, seq: 0, after: snapshot.state, snapshot });
    return snapshot;
  }

  send<E extends RunEventLike>(runId: string, event: E, options: SendOptions = NO_OPTIONS): void {
    const hosted = this.#runs.get(runId);
    if (hosted && !this.#closed) {
      // The common case takes no promise and no closure: validate, queue, done.
      let owned;
      try {
        owned = ownedEvent(event, this.clock, this.#limits.eventBytes);
        if (options !== NO_OPTIONS) options = checkSendOptions(options) ?? NO_OPTIONS;
      } catch (error) {
        return this.#reportError({ runId, event, error: error as Error });
      }
      return hosted.post(owned, options);
    }
    this.dispatch(runId, event, options).catch((error: Error) => this.#reportError({ runId, event, error }));
  }

  dispatch<E extends RunEventLike>(runId: string, event: E, options: SendOptions = NO_OPTIONS): Promise<RunSnapshot> {
    // Not async: a hosted run's own promise is returned as it is, with no extra hop to adopt it.
    let owned;
    const hosted = this.#runs.get(runId);
    try {
      this.#assertOpen();
      // A hosted run's id was checked when it was started or restored.
      if (!hosted) checkRunId(runId);
      owned = ownedEvent(event, this.clock, this.#limits.eventBytes);
      if (options !== NO_OPTIONS) options = checkSendOptions(options) ?? NO_OPTIONS;
    } catch (error) {
      return Promise.reject(error);
    }
    if (hosted) return hosted.enqueue(owned, options);
    return this.#hostStored(runId).then((run) => run.enqueue(owned, options));
  }

  async flush(): Promise<void> {
    // Applying events can queue more (actors report back), so repeat until nothing moves.
    for (;;) {
      await Promise.allSettled([...this.#loading.values()]);
      const runs = [...this.#runs.values()];
      await Promise.all(runs.map((r) => r.idle()));
      if (this.#loading.size === 0 && runs.length === this.#runs.size && runs.every((r) => r.isIdle)) return;
    }
  }

  async getSnapshot(runId: string): Promise<RunSnapshot> {
    const hosted = this.#runs.get(runId);
    if (hosted) return toRunSnapshot(hosted.committed);
    const stored = await this.store.load(checkRunId(runId));
    if (!stored) throw new UnknownRunError(runId);
    return toRunSnapshot(stored);
  }

  async list(filter: RunFilter = {}): Promise<RunSnapshot[]> {
    return (await this.store.list(checkFilter(filter))).map(toRunSnapshot);
  }

  async listByIndex(machine: string, key: string, options: { limit?: number } = {}): Promise<RunSnapshot[]> {
    const lifecycle = this.#lifecycle(machine);
    if (!lifecycle.indexes || !Object.hasOwn(lifecycle.indexes, key)) throw new UnknownIndexKeyError(machine, key, Object.keys(lifecycle.indexes ?? {}));
    const runs = this.store.listByIndex && !this.#staleIndexes.has(machine)
      ? await this.store.listByIndex(machine, key, options)
      : scanByIndex(await this.store.list({ machine }), lifecycle, key).slice(0, options.limit ?? Infinity);
    return runs.map(toRunSnapshot);
  }

  /** Writes to the log channel (`onLog`), as an actor's `run.log` does: for services built on the runtime. */
  log(runId: string, level: LogLevel, message: string, data?: Record<string, unknown>): void {
    this.#log({ runId, level, message, ...(data && { data }) });
  }

  async history(runId: string): Promise<EventRecord[]> {
    checkRunId(runId);
    if (!this.#runs.has(runId) && !(await this.store.load(runId))) throw new UnknownRunError(runId);
    return this.store.history(runId);
  }

  subscribe(listener: (step: CommittedStep) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  onError(listener: (error: RuntimeError) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  onLog(listener: (entry: LogEntry) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  async unload(runId: string): Promise<void> {
    checkRunId(runId);
    await this.#loading.get(runId)?.catch(() => {});
    const run = this.#runs.get(runId);
    if (!run) return;
    while (!run.isIdle) await run.idle();
    // In the same turn as the idle check, so no event slips in between.
    if (this.#runs.get(runId) !== run) return;
    this.#runs.delete(runId);
    const wakeAt = run.nextDeadline();
    // Nothing but timers running: let go cleanly, to wake by its deadline or next event. Otherwise
    // unloading ends what its actors ran: the lease runs out held, so whoever takes the run next
    // (a sweep at once) applies its recovery rule, as after close().
    const resting = run.restingSince() !== undefined;
    run.unload();
    if (resting) await this.#release(runId, wakeAt);
    else await this.#letGo(runId);
  }

  async close(options: { handOver?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    // No sweep claims a run and no renewal keeps one from here on.
    await Promise.all(this.#background.map((task) => task.stop()));
    await Promise.allSettled([...this.#loading.values()]);
    const handOver = options.handOver === true;
    const runs = [...this.#runs.values()];
    const wakeAts = runs.map((run) => ({ runId: run.runId, wakeAt: run.nextDeadline() }));
    openOwners.delete(this.owner.id);
    for (const run of runs) run.stop(handOver);
    this.#runs.clear();
    const keeper = this.#keeper;
    if (!keeper) return;
    await Promise.allSettled([...this.#releasing.values()]);
    try {
      // Handed over: the next host adopts the actors. Otherwise they were ended: the leases run out
      // still held, so the next host applies the recovery rule, as after a crash.
      if (handOver) await keeper.release(wakeAts, true);
      await keeper.expireAll();
    } catch (error) {
      // The runs are stopped here all the same; their leases run out within the TTL instead.
      this.#log({ runId: '', level: 'warn', message: `closing, the leases could not be let go (they run out within ${keeper.ttlMs} ms instead): ${(error as Error).message}` });
    }
  }

  /** Starts the background renewals of a store with leases, every ttl/3. */
  keepRenewing(): void {
    const keeper = this.#keeper;
    if (!keeper || this.#closed) return;
    this.#background.push(periodic(Math.max(1, Math.floor(keeper.ttlMs / 3)), () => this.#renew(), this.#backgroundFailed('renewing leases')));
  }

  /**
   * Starts the rest of the background work of a store with leases: for a runtime that recovers
   * (`recover`), the sweep every min(1000, ttl/4) ms; hibernation runs with the sweep.
   */
  keepSweeping(sweeps: boolean): void {
    const keeper = this.#keeper;
    if (!keeper || this.#closed) return;
    this.#background.push(
      periodic(
        Math.max(1, Math.min(1000, Math.floor(keeper.ttlMs / 4))),
        async () => {
          if (sweeps) await this.#sweep(false);
          this.#hibernateResting();
        },
        this.#backgroundFailed('the sweep'),
      ),
    );
  }

  #backgroundFailed(what: string): (error: Error) => void {
    return (error) => {
      // A store closed under a runtime that was never closed (a test's abandoned runtime): nothing more to do.
      if (error instanceof StoreClosedError) return void Promise.all(this.#background.map((task) => task.stop()));
      this.#log({ runId: '', level: 'error', message: `${what} failed: ${error.message}` });
    };
  }

  setAside(): SetAsideRun[] {
    return [...this.#setAside.values()];
  }

  async endSetAside(runId: string, by: { actor: string; reason: string }): Promise<RunSnapshot> {
    this.#assertOpen();
    // A run set aside for its malformed id (stored before ids were checked) can still be ended by it.
    if (!this.#setAside.has(runId)) checkRunId(runId);
    for (const name of ['actor', 'reason'] as const) {
      const value = (by as Partial<typeof by> | undefined)?.[name];
      if (typeof value !== 'string' || value.trim().length === 0) throw new InvalidArgumentError(`'${name}' of endSetAside`, value, `a non-empty string: ${name === 'actor' ? 'who ends the run' : 'why it is ended'}, kept in the audit trail`);
    }
    const stored = await this.store.load(runId);
    if (!stored) throw new UnknownRunError(runId);
    // Set aside here, or (a CLI's runtime that restored nothing) one this runtime could not restore.
    if (stored.status !== 'active' || (!this.#setAside.has(runId) && restoreProblem(stored, this.#machines, this.clock.now()) === undefined)) {
      throw new RunNotSetAsideError(runId, stored.status);
    }
    const keeper = this.#keeper;
    // A run set aside elsewhere (a CLI's runtime restored nothing) is claimed first: the commit is fenced like any other.
    if (keeper && !keeper.holds(runId)) {
      const claim = await keeper.leases.claimRun(runId, this.owner, { now: Date.now(), ttlMs: keeper.ttlMs, takeFrom: this.#deadHolders });
      if (!claim) throw new UnknownRunError(runId);
      keeper.hold(runId, claim.run.lease!.epoch);
    }
    const ended = endedRunCommit(stored, this.#machines, { ...by, owner: this.owner, now: this.clock.now() });
    const lease = keeper?.commitLease(runId);
    const commit = { ...ended, wakeAt: null, ...(lease && { lease }) };
    await this.#host.committer.commit([commit]);
    this.#setAside.delete(runId);
    if (keeper) await this.#release(runId, null);
    const snapshot = toRunSnapshot(commit.run);
    this.#notify({ runId, machine: stored.machine, seq: commit.run.seq, event: commit.event!.event, before: stored.state, after: stored.state, snapshot });
    return snapshot;
  }

  /** Brings the store's index keys up to each lifecycle's declaration (see `Store.syncIndex`). */
  async syncIndexes(): Promise<void> {
    if (!this.store.syncIndex) return;
    for (const [machine, lifecycle] of Object.entries(this.#machines)) {
      const fingerprint = indexFingerprint(lifecycle);
      if (!fingerprint) continue;
      const keysOf = (run: StoredRun) => {
        try {
          return indexKeys(lifecycle, migrate(run, lifecycle).snapshot as never) ?? {};
        } catch (error) {
          // A run this runtime cannot read (no migration from its version) is listed under no key.
          this.#log({ runId: run.runId, level: 'warn', message: `not indexed: ${(error as Error).message}` });
          return {};
        }
      };
      let count: number;
      try {
        count = await this.store.syncIndex(machine, fingerprint, keysOf);
      } catch (error) {
        // A store that cannot be written now (opened read-only, a full disk) still reads: its stale
        // index is not used, the runs are scanned instead, so a read command works on any store.
        if (!(error instanceof StoreReadOnlyError || error instanceof StoreFullError)) throw error;
        this.#staleIndexes.add(machine);
        this.#log({ runId: '', level: 'info', message: `the ${machine} index is not up to date and cannot be rewritten now (${error.message}); its runs are scanned instead` });
        continue;
      }
      if (count) this.#log({ runId: '', level: 'info', message: `indexed ${count} ${machine} runs under their lifecycle's keys` });
    }
  }

  /**
   * Restores every non-terminal run that no live process owns, and applies its lifecycle's
   * recovery hook: the events it returns are committed before any deferred side effect of the
   * restored state runs, so an agent that should be declared crashed is never spawned again.
   */
  async recoverAll(): Promise<void> {
    // With leases: the first sweep, which reads only what must act now (due deadlines, the runs of
    // dead or expired holders, handed-over runs), never every active run.
    if (this.#keeper) return this.#sweep(true);
    for (const stored of await this.store.list({ status: 'active' })) {
      const owner = stored.owner;
      if (owner !== undefined && isOtherOwnerAlive(owner, this.owner)) continue; // another live runtime hosts it
      await this.#restoreAtStart(stored.runId, stored.machine, { stored, recovery: { owner, alive: false } });
    }
  }

  async #restoreAtStart(runId: string, machine: string, found: Found): Promise<void> {
    try {
      await this.#hostStored(runId, found);
      this.restoredAtStart.push({ runId, machine, ...(found.adopted && { adopted: true }) });
    } catch (error) {
      // Set aside or not, the next run is restored all the same.
      this.#reportError({ runId, event: { type: 'statewright.recover' }, error: error as Error });
    }
  }

  /**
   * Claims the runs that must act now (see `StoreLeases.claimDue`) and hosts them, round after
   * round while rounds come back full. `first`: at start, when the runs a previous process of this
   * very host id held are taken at once too (it is gone: this is its restart).
   */
  async #sweep(first: boolean): Promise<void> {
    const keeper = this.#keeper!;
    const holders = await keeper.leases.holders();
    this.#knownHolders = new Map(holders.map(({ owner }) => [owner.id, owner]));
    this.#deadHolders = deadHolders(holders, this.owner);
    // What a previous process of this host id holds is taken in the first round alone: once this
    // runtime has claimed runs, they are held under the same id, and a later round taking from it
    // would claim them again (raising their epoch behind the keeper's back, so their commits would
    // be refused). Runs it leaves (a round filled by expired leases first) are taken once they expire.
    const ownHeld = first ? holders.filter((h) => h.owner.id === this.owner.id).reduce((sum, h) => sum + h.runs, 0) : 0;
    let takeFrom = ownHeld > 0 ? [...this.#deadHolders, this.owner.id] : this.#deadHolders;
    let limit = SWEEP_LIMIT + ownHeld;
    const horizon = (this.#hibernation ?? DEFAULT_HIBERNATION).horizonMs;
    const seen = new Set<string>();
    for (;;) {
      if (this.#closed) return;
      const claims = await keeper.leases.claimDue(this.owner, { now: Date.now(), dueBy: this.clock.now() + horizon, ttlMs: keeper.ttlMs, limit, takeFrom });
      let fresh = 0;
      for (const claim of claims) {
        if (seen.has(claim.run.runId)) continue;
        seen.add(claim.run.runId);
        fresh++;
        await this.#hostClaimed(claim, first);
      }
      // A run this host cannot restore is let go at once and due again: a round of only those ends the sweep.
      if (claims.length < limit || fresh === 0) return;
      takeFrom = this.#deadHolders;
      limit = SWEEP_LIMIT;
    }
  }

  async #hostClaimed(claim: Claim, atStart: boolean): Promise<void> {
    const keeper = this.#keeper!;
    const { runId, machine } = claim.run;
    const epoch = claim.run.lease!.epoch;
    if (this.#closed) return;
    // Claimed here again since (an event's claim, answered first): that claim's own path hosts it.
    if ((keeper.epochOf(runId) ?? 0) > epoch) return;
    const hosted = this.#runs.get(runId);
    // Our own lease, run out while this host was too busy to renew it: claimed back by itself.
    if (hosted && hosted.committed.seq === claim.run.seq) return void keeper.hold(runId, epoch);
    const loading = hosted ? undefined : this.#loading.get(runId);
    if (loading) {
      keeper.hold(runId, epoch);
      // An event's load under way hosts the run. Its own claim may have been refused before this
      // one (another host held the run until its lease ran out): then this claim hosts it, or it
      // would stay held here, renewed, with nothing in memory and no timer to fire.
      loading.catch(() => this.#hostClaimed(claim, atStart)).catch((error: Error) => this.#reportError({ runId, event: { type: 'statewright.recover' }, error }));
      return;
    }
    if (hosted) {
      // Another host committed meanwhile: what is in memory here is stale.
      this.#runs.delete(runId);
      hosted.lose(new LeaseLostError([{ runId, holder: this.owner.id, epoch: keeper.epochOf(runId) ?? 0, stored: claim.previous }]));
    }
    keeper.hold(runId, epoch);
    if (this.#setAside.has(runId)) return this.#letGo(runId);
    const found = this.#found(claim);
    if (atStart) await this.#restoreAtStart(runId, machine, found);
    else {
      await this.#hostStored(runId, found).catch((error: Error) => this.#reportError({ runId, event: { type: 'statewright.recover' }, error }));
      this.#log({ runId, level: 'info', message: found.adopted ? 'adopted: its previous host handed it over' : found.recovery ? `taken over from '${claim.previous?.holder}', whose lease ran out` : 'woken: its deadline is near' });
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
      return owner && isOtherOwnerAlive(owner, this.owner) ? { stored } : { stored, recovery: { owner, alive: false } };
    }
    // Held: its holder is gone (the claim could take it). Named by the store, else as the sweep last saw it.
    const owner = claim.previousOwner ?? this.#knownHolders.get(previous.holder) ?? { id: previous.holder, pid: 0, pidStart: 'unknown', host: 'unknown' };
    return { stored, recovery: { owner, alive: false } };
  }

  /** Claims a run that an event is sent to (a store with leases), or loads it. */
  async #find(runId: string): Promise<Found | undefined> {
    const keeper = this.#keeper;
    if (!keeper) {
      const stored = await this.store.load(runId);
      return stored && { stored };
    }
    await this.#releasing.get(runId);
    const setAside = this.#setAside.get(runId);
    if (setAside) throw new RunSetAsideError(runId, setAside.reason);
    this.#finding++;
    try {
      // A lone wake of a run let go cleanly is one write: the run is read, and its first commit claims
      // it. Many at once are claimed together instead (`GroupClaimer`): one statement beats a read each.
      if (this.#finding === 1) {
        const stored = await this.store.load(runId);
        if (!stored) return undefined;
        if (stored.status === 'active' && stored.lease?.state === 'released') {
          keeper.claimOnCommit(runId, stored.lease.epoch);
          return { stored };
        }
        // Held, handed over or never leased: the claim says whether the recovery rule applies or the actors are adopted.
      }
      const claim = await this.#claimRun(keeper, runId);
      if (!claim) return undefined;
      keeper.hold(runId, claim.run.lease!.epoch);
      return this.#found(claim);
    } finally {
      this.#finding--;
    }
  }

  /** A hosted run read back (after a commit of unknown outcome): a claiming commit found to have landed holds the run here. */
  async #reload(runId: string): Promise<StoredRun | undefined> {
    const stored = await this.store.load(runId);
    if (stored?.lease) this.#keeper?.claimLanded(runId, stored.lease);
    return stored;
  }

  /**
   * `claimRun`, taking from the holders the last sweep found dead; refused by a holder that
   * sweep did not know of (or with no sweep: a CLI's runtime), it looks once whether that holder is
   * a dead process of this machine, and then takes the run at once instead of waiting out its lease.
   */
  async #claimRun(keeper: LeaseKeeper, runId: string): Promise<Claim | undefined> {
    const claim = (takeFrom: readonly string[]) => this.#claimer!.claim(runId, takeFrom);
    const takeFrom = this.#deadHolders;
    try {
      return await claim(takeFrom);
    } catch (error) {
      if (!(error instanceof RunHeldError) || takeFrom.includes(error.lease.holder)) throw error;
      // A sweep may have found the holder dead while the claim was out; else look once.
      if (!this.#deadHolders.includes(error.lease.holder)) {
        const holders = await keeper.leases.holders();
        for (const { owner } of holders) this.#knownHolders.set(owner.id, owner);
        if (!deadHolders(holders, this.owner).includes(error.lease.holder)) throw error;
      }
      return claim([...this.#deadHolders, error.lease.holder]);
    }
  }

  #commitLease(runId: string) {
    const keeper = this.#keeper;
    if (!keeper) return undefined;
    const lease = keeper.commitLease(runId);
    // On a shared store a run commits only under its lease: one not held here (let go meanwhile) is refused, never written unfenced.
    if (!lease) throw new LeaseLostError([{ runId, holder: this.owner.id, epoch: 0, stored: undefined }]);
    return lease;
  }

  /** A commit of `run` was refused: another host holds it now. It is no longer hosted here. */
  #lost(run: HostedRun, error: LeaseLostError): void {
    if (this.#runs.get(run.runId) === run) this.#runs.delete(run.runId);
    this.#keeper?.forget(run.runId);
    this.#log({ runId: run.runId, level: 'warn', message: `no longer hosted here, its actors ended: ${error.message}` });
  }

  /** Renews every lease held here; a run the store says is lost stops being hosted here at once. */
  async #renew(): Promise<void> {
    const keeper = this.#keeper!;
    for (const { runId, epoch } of await keeper.renewAll()) {
      const run = this.#runs.get(runId);
      let stored;
      try {
        stored = (await this.store.load(runId))?.lease;
      } catch {
        stored = undefined;
      }
      // Claimed here again while the store was read (the sweep took back a lease of ours that ran
      // out; the renewal, sent before, reached the store after it): that claim kept the run hosted
      // here, or hosts it. Dropped now, it would stay held and renewed with nothing in memory.
      if (keeper.holds(runId)) continue;
      const error = new LeaseLostError([{ runId, holder: this.owner.id, epoch, stored }]);
      if (run && this.#runs.get(runId) === run) {
        this.#runs.delete(runId);
        run.lose(error);
      }
      this.#log({ runId, level: 'warn', message: `no longer hosted here, its actors ended: ${error.message}` });
    }
  }

  /** Drops the resting runs from memory (see hibernation.ts) and releases their leases with their next deadline. */
  #hibernateResting(): void {
    const hibernation = this.#hibernation;
    if (!hibernation || this.#closed) return;
    const now = this.clock.now();
    for (const run of [...this.#runs.values()]) {
      if (!mayHibernate(run, now, hibernation)) continue;
      // In the same turn as the check: an event sent from now on claims the run anew.
      this.#runs.delete(run.runId);
      const wakeAt = run.nextDeadline();
      run.unload();
      void this.#release(run.runId, wakeAt);
      this.#log({ runId: run.runId, level: 'debug', message: `hibernated: resting since ${new Date(run.restingSince() ?? now).toISOString()}${wakeAt === null ? '' : `, wakes by ${new Date(wakeAt).toISOString()}`}` });
    }
  }

  /**
   * Lets go of a run's lease as held and run out, so that the next host to take it applies the
   * recovery rule: a run this host claimed but cannot restore (set aside here), or one whose actors it ended.
   */
  async #letGo(runId: string): Promise<void> {
    await this.#keeper?.expire([runId]).catch((error: Error) => this.#log({ runId, level: 'error', message: `letting go of its lease failed (it runs out instead): ${error.message}` }));
  }

  /** Lets go of one run's lease (it sleeps in the store until `wakeAt` or its next event); a claim of it waits for this. */
  #release(runId: string, wakeAt: number | null): Promise<void> {
    const keeper = this.#keeper;
    if (!keeper) return Promise.resolve();
    if (!keeper.holds(runId)) {
      keeper.forget(runId); // read to be woken and never committed to: its stored lease is still the released one
      return Promise.resolve();
    }
    const releasing = keeper
      .release([{ runId, wakeAt }], false)
      .catch((error: Error) => this.#log({ runId, level: 'error', message: `releasing its lease failed (it runs out instead): ${error.message}` }))
      .finally(() => {
        if (this.#releasing.get(runId) === releasing) this.#releasing.delete(runId);
      });
    this.#releasing.set(runId, releasing);
    return releasing;
  }

  /** Hosts a stored run in memory: restores its actor and applies the lifecycle's recovery hook. */
  #hostStored(runId: string, known?: Found): Promise<HostedRun> {
    const hosted = this.#runs.get(runId);
    if (hosted) return Promise.resolve(hosted);
    let loading = this.#loading.get(runId);
    if (!loading) {
      loading = (async () => {
        const found = known ?? (await this.#find(runId));
        if (!found) throw new UnknownRunError(runId);
        const { stored, recovery } = found;
        const setAside = this.#setAside.get(runId);
        if (setAside) throw new RunSetAsideError(runId, setAside.reason);
        // A run that cannot be restored, whatever the cause, is set aside with its reason: it must
        // never stop the runtime, its restarts or the other runs.
        let stage: RestoreStage = 'id';
        let run: HostedRun | undefined;
        let events: Array<{ type: string; [key: string]: unknown }>;
        try {
          // Stored before ids were checked, or written past the runtime: no call could reach it.
          checkStoredId(runId);
          stage = 'machine';
          const lifecycle = this.#lifecycle(stored.machine);
          stage = 'migrate';
          const current = migrate(stored, lifecycle);
          stage = 'restore';
          run = new HostedRun(runId, stored.machine, this.#host);
          run.activate(current, undefined, true);
          const refused = run.restoreError(current);
          if (refused !== undefined) throw refused;
          stage = 'recover';
          events = recovery
            ? (lifecycle.recover?.({
                runId,
                snapshot: current.snapshot as never,
                previousOwner: recovery.owner && { id: recovery.owner.id, pid: recovery.owner.pid, host: recovery.owner.host, alive: recovery.alive },
                now: this.clock.now(),
              }) ?? [])
            : [];
        } catch (error) {
          run?.unload();
          void this.#letGo(runId);
          // A run that has ended is not restored to move on, and not listed as one that should.
          if (stored.status !== 'active') throw error;
          const entry = setAsideEntry(stored, setAsideReason(stage, error));
          this.#setAside.set(runId, entry);
          // The caller hears it: a restart's recovery reports it on the error channel and goes on.
          throw new RunSetAsideError(runId, entry.reason, error);
        }
        this.#runs.set(runId, run);
        if (events.length === 0) run.settleActivation(undefined);
        for (const event of events) {
          const refused = (error: Error) => this.#reportError({ runId, event, error });
          try {
            run.enqueue(ownedEvent(event, this.clock), { actor: 'recovery', reason: `restored by ${this.owner.id}` }).catch(refused);
          } catch (error) {
            refused(error as Error);
          }
        }
        return run;
      })();
      this.#loading.set(runId, loading);
      loading.finally(() => this.#loading.delete(runId)).catch(() => {});
    }
    return loading;
  }

  #logicFor(handle: RunHandle, machine: string): { logic: AnyStateMachine; logger: (...args: unknown[]) => void } {
    const base = this.#lifecycle(machine).machine;
    const factories = this.#actors.get(machine)!;
    return { logger: runLogger(base, factories, handle), logic: logicWithActors(base, factories) };
  }

  #lifecycle(machine: string): Lifecycle {
    const lifecycle = Object.hasOwn(this.#machines, machine) ? this.#machines[machine] : undefined;
    if (!lifecycle) throw new UnknownMachineError(machine, Object.keys(this.#machines));
    return lifecycle;
  }

  #notify(step: CommittedStep): void {
    for (const listener of this.#subscribers) {
      try {
        listener(step);
      } catch (error) {
        this.#log({ runId: step.runId, level: 'error', message: `a subscriber threw: ${(error as Error).message}` });
      }
    }
  }

  #reportError(error: RuntimeError): void {
    if (this.#errorListeners.size === 0) {
      // Never swallowed: with no listener, errors go to stderr.
      process.stderr.write(`statewright: run '${error.runId}', event '${error.event.type}': ${error.error.message}\n`);
      return;
    }
    for (const listener of this.#errorListeners) listener(error);
  }

  #log(entry: LogEntry): void {
    if (this.#logListeners.size === 0) {
      if (entry.level === 'warn' || entry.level === 'error') process.stderr.write(`statewright ${entry.level}: run '${entry.runId}': ${entry.message}\n`);
      return;
    }
    for (const listener of this.#logListeners) listener(entry);
  }

  #assertOpen(): void {
    if (this.#closed) throw new RuntimeClosedError();
  }
}
