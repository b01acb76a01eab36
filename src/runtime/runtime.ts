/**
 * The runtime: the `Runtime` interface and `createRuntime`, which checks every call's arguments and
 * hands the call on. How the parts fit:
 * - `RunTable` (run-table.ts) holds the runs in memory: the hosted ones, the loads under way, the
 *   set-aside ones; it starts, restores, unloads and stops them.
 * - `HostedRun` (hosted-run.ts) is one run: its XState actor, its queue, its phase; it applies a
 *   batch of events and commits it before anyone hears of it.
 * - `Hosting` (hosting/) is the one seam to the store: how runs are taken, fenced and let go of.
 *   `LoneStoreHosting` for a store only this host uses, `SharedStoreHosting` for one shared under
 *   leases (the sweep, claims, renewals, releases, hibernation).
 * - `Channels` (channels.ts) tells the world: subscribers, the error and log channels, the inspector.
 * Actors see none of this: they get a `RunHandle` (src/actor-contract).
 */
import { randomUUID } from 'node:crypto';
import type { InspectionEvent, Observer } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { EventRecord, OwnerInfo, RunCounts, RunFilter, RunPage, RunPageQuery, Store } from '../stores/store.js';
import { systemClock, type Clock } from '../actor-contract/clock.js';
import type { LogLevel, MachineActors, SendOptions } from '../actor-contract/run-handle.js';
import {
  checkFilter,
  checkLimits,
  checkPageQuery,
  checkRunId,
  checkSendOptions,
  ownedInput,
  type PayloadLimits,
} from './call-arguments.js';
import { Channels, type LogEntry, type RuntimeError } from './channels.js';
import { InvalidArgumentError, RuntimeClosedError, UnknownRunError } from './errors.js';
import { ownedEvent } from './event-shape.js';
import { HostedMachines } from './hosted-machines.js';
import { NO_OPTIONS } from './run-context.js';
import { hibernationOptions } from './hosting/hibernation.js';
import type { Hosting } from './hosting/hosting.js';
import { leaseTtl } from './hosting/lease-keeper.js';
import { openOwners } from './hosting/live-owners.js';
import { LoneStoreHosting } from './hosting/lone-store.js';
import { SharedStoreHosting } from './hosting/shared-store.js';
import { scanByIndex, UnknownIndexKeyError } from './index-keys.js';
import { syncIndexes } from './index-sync.js';
import { resolveOwner } from './owner.js';
import type { Refusal } from './refusal.js';
import { RunTable } from './run-table.js';
import { toRunSnapshot, type CommittedStep, type RunSnapshot } from './run-snapshot.js';
import type { SetAsideRun } from './set-aside.js';
import type { AnyRunEvent, EventOf, InputOf, MachineName } from './typed-names.js';

export type { LogEntry, RuntimeError } from './channels.js';

/** `M`: the lifecycles by name, as `machines` gives them; the runtime's machine names and events are typed from it. */
export interface RuntimeOptions<M extends Lifecycles = Lifecycles> {
  store: Store;
  /** The lifecycles this runtime hosts, usually the registry `lifecycles` from `statewright/machines`. */
  machines: M;
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

/**
 * A runtime hosting the lifecycles `M`: `start`, `send`, `dispatch` and `listByIndex` take only its
 * machines' names and events (typed-names.ts). `Runtime` alone (any lifecycles) takes any name and
 * any `{ type: string }`; a runtime typed precisely is still a `Runtime`.
 */
export interface Runtime<M extends Lifecycles = Lifecycles> {
  /** Starts a run of a registered machine; resolves once its initial snapshot is committed. */
  start<N extends MachineName<M>>(machine: N, options?: { id?: string; input?: InputOf<M[N]> }): Promise<RunSnapshot>;
  /** Fire and forget: queues the event; a refusal reaches `onError` listeners. */
  send<E extends EventOf<M>>(runId: string, event: E, options?: SendOptions): void;
  /** Queues the event and resolves with the run's snapshot once it is committed, or rejects with why not. */
  dispatch<E extends EventOf<M>>(runId: string, event: E, options?: SendOptions): Promise<RunSnapshot>;
  /** Resolves when every queued event of every run has been applied and committed (or refused). */
  flush(): Promise<void>;
  /** The last committed snapshot of a run. */
  getSnapshot(runId: string): Promise<RunSnapshot>;
  list(filter?: RunFilter): Promise<RunSnapshot[]>;
  /**
   * One page of runs, newest first (`createdAt`, then run id, both descending), filtered and
   * searched by the store (`q`: part of the run id, A-Z in either case) from an index where it has
   * one: a page costs the same however many runs there are. Pass a page's `next` as `after` to get
   * the one after it; no run that existed at the first page is skipped or repeated.
   */
  listPage(query: RunPageQuery): Promise<RunPage<RunSnapshot>>;
  /** How many of the runs `filter` asks for rest in each state, and their total: counted by the store, exact at any size. */
  countRuns(filter?: RunFilter): Promise<RunCounts>;
  /**
   * The runs of `machine` listed under one of its index keys (`Lifecycle.indexes`), in the key's
   * order then by run id: from the store's index when it has one (SQLite), else by a scan.
   */
  listByIndex(machine: MachineName<M>, key: string, options?: { limit?: number }): Promise<RunSnapshot[]>;
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
  readonly machines: M;
  /** The last event this runtime refused for the run, and why (in memory: forgotten when the runtime closes). */
  lastRefusal(runId: string): Refusal | undefined;
  /**
   * The runs this runtime restored when it started (`recover`), whose lifecycle's recovery hook it
   * applied: for a lifecycle's service to finish their recovery when it attaches (a session daemon
   * stops the agents of sessions it failed as orphaned).
   */
  readonly restoredAtStart: ReadonlyArray<{
    readonly runId: string;
    readonly machine: string;
    readonly adopted?: boolean;
  }>;
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
  endSetAside(runId: string, by: { actor: string; reason: string; credential?: string }): Promise<RunSnapshot>;
}

/** Creates a runtime on `store` and, unless told not to, restores every non-terminal run in it. */
export async function createRuntime<M extends Lifecycles = Lifecycles>(
  options: RuntimeOptions<M>,
): Promise<Runtime<M>> {
  const runtime = new DurableRuntime<M>(options);
  const recover = options.recover !== false;
  try {
    await runtime.syncIndexes();
    // Renewing from before the first sweep: a sweep that takes over many runs may last longer than
    // a lease, and a claim left to run out meanwhile would be taken again behind this runtime's back.
    runtime.hosting.beginRenewing();
    if (recover) await runtime.hosting.recover();
  } catch (error) {
    await runtime.close().catch(() => {});
    throw error;
  }
  runtime.hosting.beginSweeping(recover);
  return runtime;
}

class DurableRuntime<M extends Lifecycles> implements Runtime<M> {
  readonly store: Store;
  readonly clock: Clock;
  readonly owner: OwnerInfo;
  readonly #machines: HostedMachines;
  readonly #limits: PayloadLimits;
  readonly #channels: Channels;
  readonly #runs: RunTable;
  /** Machines whose stored index could not be brought up to date (a read-only store, a full disk): listed by scanning. */
  #staleIndexes = new Set<string>();
  #closed = false;

  constructor(options: RuntimeOptions<M>) {
    const store = (this.store = options.store);
    const clock = (this.clock = options.clock ?? systemClock);
    const owner = (this.owner = resolveOwner(options.owner));
    const machines = (this.#machines = new HostedMachines(options.machines, options.actors ?? {}));
    this.#limits = checkLimits(options.limits);
    const channels = (this.#channels = new Channels(clock, options));
    const hibernation = hibernationOptions(options.hibernate);
    this.#runs = new RunTable(store, { clock, owner, store, machines, channels }, (runs) => {
      if (!store.leases) return new LoneStoreHosting(store, owner, runs, channels);
      return new SharedStoreHosting(
        { store, leases: store.leases, owner, clock, channels, ttlMs: leaseTtl(options.leases), hibernation },
        runs,
      );
    });
    openOwners.add(owner.id);
  }

  get hosting(): Hosting {
    return this.#runs.hosting;
  }

  get machines(): M {
    return this.#machines.all as M;
  }

  get restoredAtStart(): Runtime<M>['restoredAtStart'] {
    return this.#runs.restoredAtStart;
  }

  lastRefusal(runId: string): Refusal | undefined {
    return this.#channels.lastRefusal(runId);
  }

  async start(machine: string, options: { id?: string; input?: unknown } = {}): Promise<RunSnapshot> {
    this.#assertOpen();
    const lifecycle = this.#machines.lifecycle(machine);
    const runId = options.id === undefined ? randomUUID() : checkRunId(options.id);
    const input = ownedInput(options.input, this.#limits.inputBytes);
    return this.#runs.start(runId, machine, lifecycle.version, input);
  }

  send(runId: string, event: AnyRunEvent, options: SendOptions = NO_OPTIONS): void {
    const hosted = this.#runs.hosted(runId);
    if (hosted && !this.#closed) {
      // The common case takes no promise and no closure: validate, queue, done.
      let owned;
      try {
        owned = ownedEvent(event, this.clock, this.#limits.eventBytes);
        if (options !== NO_OPTIONS) options = checkSendOptions(options) ?? NO_OPTIONS;
      } catch (error) {
        this.#channels.error(runId, event, error as Error);
        return;
      }
      hosted.post(owned, options);
      return;
    }
    this.dispatch(runId, event, options).catch((error: Error) => this.#channels.error(runId, event, error));
  }

  dispatch(runId: string, event: AnyRunEvent, options: SendOptions = NO_OPTIONS): Promise<RunSnapshot> {
    // Not async: a hosted run's own promise is returned as it is, with no extra hop to adopt it.
    let owned;
    const hosted = this.#runs.hosted(runId);
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
    return this.#runs.host(runId).then((run) => run.enqueue(owned, options));
  }

  flush(): Promise<void> {
    return this.#runs.flush();
  }

  async getSnapshot(runId: string): Promise<RunSnapshot> {
    const hosted = this.#runs.hosted(runId);
    if (hosted) return toRunSnapshot(hosted.committed);
    const stored = await this.store.load(checkRunId(runId));
    if (!stored) throw new UnknownRunError(runId);
    return toRunSnapshot(stored);
  }

  async list(filter: RunFilter = {}): Promise<RunSnapshot[]> {
    return (await this.store.list(checkFilter(filter))).map(toRunSnapshot);
  }

  async listPage(query: RunPageQuery): Promise<RunPage<RunSnapshot>> {
    const page = await this.store.listPage(checkPageQuery(query));
    return { runs: page.runs.map(toRunSnapshot), next: page.next };
  }

  async countRuns(filter: RunFilter = {}): Promise<RunCounts> {
    return this.store.countByState(checkFilter(filter));
  }

  async listByIndex(machine: string, key: string, options: { limit?: number } = {}): Promise<RunSnapshot[]> {
    const lifecycle = this.#machines.lifecycle(machine);
    if (!lifecycle.indexes || !Object.hasOwn(lifecycle.indexes, key))
      throw new UnknownIndexKeyError(machine, key, Object.keys(lifecycle.indexes ?? {}));
    const runs =
      this.store.listByIndex && !this.#staleIndexes.has(machine)
        ? await this.store.listByIndex(machine, key, options)
        : scanByIndex(await this.store.list({ machine }), lifecycle, key).slice(0, options.limit ?? Infinity);
    return runs.map(toRunSnapshot);
  }

  /** Writes to the log channel (`onLog`), as an actor's `run.log` does: for services built on the runtime. */
  log(runId: string, level: LogLevel, message: string, data?: Record<string, unknown>): void {
    this.#channels.log(runId, level, message, data);
  }

  async history(runId: string): Promise<EventRecord[]> {
    checkRunId(runId);
    if (!this.#runs.hosted(runId) && !(await this.store.load(runId))) throw new UnknownRunError(runId);
    return this.store.history(runId);
  }

  subscribe(listener: (step: CommittedStep) => void): () => void {
    return this.#channels.subscribe(listener);
  }

  onError(listener: (error: RuntimeError) => void): () => void {
    return this.#channels.onError(listener);
  }

  onLog(listener: (entry: LogEntry) => void): () => void {
    return this.#channels.onLog(listener);
  }

  async unload(runId: string): Promise<void> {
    checkRunId(runId);
    await this.#runs.unload(runId);
  }

  async close(options: { handOver?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    // No sweep claims a run and no renewal keeps one from here on.
    await this.hosting.stop();
    const handOver = options.handOver === true;
    const stopped = await this.#runs.stopAll(handOver);
    openOwners.delete(this.owner.id);
    await this.hosting.close(stopped, handOver);
  }

  setAside(): SetAsideRun[] {
    return this.#runs.setAside();
  }

  async endSetAside(runId: string, by: { actor: string; reason: string; credential?: string }): Promise<RunSnapshot> {
    this.#assertOpen();
    // A run set aside for its malformed id (stored before ids were checked) can still be ended by it.
    if (!this.#runs.setAsideOf(runId)) checkRunId(runId);
    for (const name of ['actor', 'reason'] as const) {
      const value = (by as Partial<typeof by> | undefined)?.[name];
      if (typeof value !== 'string' || value.trim().length === 0)
        throw new InvalidArgumentError(
          `'${name}' of endSetAside`,
          value,
          `a non-empty string: ${name === 'actor' ? 'who ends the run' : 'why it is ended'}, kept in the audit trail`,
        );
    }
    return this.#runs.endSetAside(runId, by);
  }

  /** Brings the store's index keys up to each lifecycle's declaration (see `Store.syncIndex`). */
  async syncIndexes(): Promise<void> {
    this.#staleIndexes = await syncIndexes(this.store, this.#machines.all, this.#channels);
  }

  #assertOpen(): void {
    if (this.#closed) throw new RuntimeClosedError();
  }
}
