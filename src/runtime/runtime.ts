import { randomUUID } from 'node:crypto';
import type { AnyStateMachine, EventObject, InspectionEvent, Observer } from 'xstate';
import type { Lifecycle, Lifecycles } from '../../machines/lifecycle.js';
import { CommitConflictError, type EventRecord, type OwnerInfo, type RunFilter, type Store, type StoredRun } from '../stores/store.js';
import { systemClock, type Clock } from './clock.js';
import { RunExistsError, RuntimeClosedError, UnknownMachineError, UnknownRunError } from './errors.js';
import { ownedEvent } from './event-shape.js';
import { GroupCommitter } from './group-commit.js';
import { HostedRun, NO_OPTIONS, type RunHost } from './hosted-run.js';
import { checkFilter, checkRunId, checkSendOptions, ownedInput } from './call-arguments.js';
import { indexFingerprint, indexKeys, scanByIndex, UnknownIndexKeyError } from './index-keys.js';
import { migrate } from './migrate.js';
import { isProcessAlive } from '../os/process-identity.js';
import { logicWithActors, machineActors, type ActorsByMachine } from './machine-actors.js';
import { resolveOwner } from './owner.js';
import type { LogLevel, MachineActors, RunHandle, SendOptions } from './run-handle.js';
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
}

/** Owners of the runtimes open in this process: a closed one's runs may be taken over at once. */
const openOwners = new Set<string>();

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
  readonly restoredAtStart: ReadonlyArray<{ readonly runId: string; readonly machine: string }>;
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
}

/** Creates a runtime on `store` and, unless told not to, restores every non-terminal run in it. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const runtime = new DurableRuntime(options);
  await runtime.syncIndexes();
  if (options.recover !== false) await runtime.recoverAll();
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
  readonly #subscribers = new Set<(step: CommittedStep) => void>();
  readonly #errorListeners = new Set<(error: RuntimeError) => void>();
  readonly #logListeners = new Set<(entry: LogEntry) => void>();
  readonly #host: RunHost;
  readonly restoredAtStart: Array<{ readonly runId: string; readonly machine: string }> = [];
  #closed = false;

  constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.owner = resolveOwner(options.owner);
    this.#machines = options.machines;
    this.#actors = machineActors(options.machines, options.actors ?? {});
    if (options.onError) this.#errorListeners.add(options.onError);
    if (options.onLog) this.#logListeners.add(options.onLog);
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
      load: (runId) => this.store.load(runId),
      committed: (step) => this.#notify(step),
      error: (runId, event, error) => this.#reportError({ runId, event, error }),
      refused: (runId, event, error) => this.#lastRefusals.set(runId, refusal(event, error, this.clock.now())),
      log: (runId, level, message, data) => this.#log({ runId, level, message, ...(data && { data }) }),
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
    const input = ownedInput(options.input);
    if (this.#runs.has(runId) || this.#loading.has(runId)) throw new RunExistsError(runId);
    const run = new HostedRun(runId, machine, this.#host);
    const now = this.clock.now();
    const base = { runId, machine, version: lifecycle.version, input: input ?? null, seq: 0, owner: this.owner, createdAt: now, updatedAt: now };
    const placeholder: StoredRun = { ...base, status: 'active', state: '', snapshot: null };
    // Hosted before the commit so events its actors send while starting queue behind it.
    const ready = (async () => {
      run.activate(placeholder, input, false);
      let row: StoredRun;
      try {
        row = run.initialRow(base);
        const keys = run.initialKeys();
        await this.#host.committer.commit([{ run: row, expectedSeq: undefined, ...(keys && { keys }) }]);
      } catch (error) {
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
        owned = ownedEvent(event, this.clock);
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
    try {
      this.#assertOpen();
      owned = ownedEvent(event, this.clock);
      if (options !== NO_OPTIONS) options = checkSendOptions(options) ?? NO_OPTIONS;
    } catch (error) {
      return Promise.reject(error);
    }
    const hosted = this.#runs.get(runId);
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
    const stored = await this.store.load(runId);
    if (!stored) throw new UnknownRunError(runId);
    return toRunSnapshot(stored);
  }

  async list(filter: RunFilter = {}): Promise<RunSnapshot[]> {
    return (await this.store.list(checkFilter(filter))).map(toRunSnapshot);
  }

  async listByIndex(machine: string, key: string, options: { limit?: number } = {}): Promise<RunSnapshot[]> {
    const lifecycle = this.#lifecycle(machine);
    if (!lifecycle.indexes || !Object.hasOwn(lifecycle.indexes, key)) throw new UnknownIndexKeyError(machine, key, Object.keys(lifecycle.indexes ?? {}));
    const runs = this.store.listByIndex
      ? await this.store.listByIndex(machine, key, options)
      : scanByIndex(await this.store.list({ machine }), lifecycle, key).slice(0, options.limit ?? Infinity);
    return runs.map(toRunSnapshot);
  }

  /** Writes to the log channel (`onLog`), as an actor's `run.log` does: for services built on the runtime. */
  log(runId: string, level: LogLevel, message: string, data?: Record<string, unknown>): void {
    this.#log({ runId, level, message, ...(data && { data }) });
  }

  async history(runId: string): Promise<EventRecord[]> {
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
    await this.#loading.get(runId)?.catch(() => {});
    const run = this.#runs.get(runId);
    if (!run) return;
    while (!run.isIdle) await run.idle();
    // In the same turn as the idle check, so no event slips in between.
    if (this.#runs.get(runId) === run) this.#runs.delete(runId);
    run.unload();
  }

  async close(options: { handOver?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    openOwners.delete(this.owner.id);
    for (const run of this.#runs.values()) run.stop(options.handOver === true);
    this.#runs.clear();
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
      const count = await this.store.syncIndex(machine, fingerprint, keysOf);
      if (count) this.#log({ runId: '', level: 'info', message: `indexed ${count} ${machine} runs under their lifecycle's keys` });
    }
  }

  /**
   * Restores every non-terminal run that no live process owns, and applies its lifecycle's
   * recovery hook: the events it returns are committed before any deferred side effect of the
   * restored state runs, so an agent that should be declared crashed is never spawned again.
   */
  async recoverAll(): Promise<void> {
    for (const stored of await this.store.list({ status: 'active' })) {
      const owner = stored.owner;
      // In this very process the pid says nothing: a runtime closed here is gone, one open is not.
      const inThisProcess = owner !== undefined && owner.pid === this.owner.pid && owner.host === this.owner.host;
      const alive = owner !== undefined && owner.id !== this.owner.id && (inThisProcess ? openOwners.has(owner.id) : isProcessAlive(owner));
      if (alive) continue; // another live runtime hosts it
      try {
        await this.#hostStored(stored.runId, stored, { owner, alive: false });
        this.restoredAtStart.push({ runId: stored.runId, machine: stored.machine });
      } catch (error) {
        this.#reportError({ runId: stored.runId, event: { type: 'statewright.recover' }, error: error as Error });
      }
    }
  }

  /** Hosts a stored run in memory: restores its actor and applies the lifecycle's recovery hook. */
  #hostStored(runId: string, known?: StoredRun, recovery?: { owner: OwnerInfo | undefined; alive: boolean }): Promise<HostedRun> {
    const hosted = this.#runs.get(runId);
    if (hosted) return Promise.resolve(hosted);
    let loading = this.#loading.get(runId);
    if (!loading) {
      loading = (async () => {
        const stored = known ?? (await this.store.load(runId));
        if (!stored) throw new UnknownRunError(runId);
        const lifecycle = this.#lifecycle(stored.machine);
        const current = migrate(stored, lifecycle);
        const run = new HostedRun(runId, stored.machine, this.#host);
        run.activate(current, undefined, true);
        const events = recovery
          ? (lifecycle.recover?.({
              runId,
              snapshot: current.snapshot as never,
              previousOwner: recovery.owner && { id: recovery.owner.id, pid: recovery.owner.pid, host: recovery.owner.host, alive: recovery.alive },
              now: this.clock.now(),
            }) ?? [])
          : [];
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

  #logicFor(handle: RunHandle, machine: string): AnyStateMachine {
    return logicWithActors(this.#lifecycle(machine).machine, this.#actors.get(machine)!, handle);
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
