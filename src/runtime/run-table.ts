import { CommitConflictError, type Store, type StoredRun } from '../stores/store.js';
import { endedRunCommit } from './end-run.js';
import { RunExistsError, RunNotSetAsideError, RunSetAsideError, UnknownRunError } from './errors.js';
import { ownedEvent } from './event-shape.js';
import { GroupCommitter } from './group-commit.js';
import { HostedRun } from './hosted-run.js';
import type { RunContext } from './run-context.js';
import type { Found, HostedRuns, Hosting } from './hosting/hosting.js';
import { migrate } from './migrate.js';
import { toRunSnapshot, type RunSnapshot } from './run-snapshot.js';
import {
  checkStoredId,
  checkNoInlineChild,
  restoreProblem,
  setAsideEntry,
  setAsideReason,
  type RestoreStage,
  type SetAsideRun,
} from './set-aside.js';

/**
 * The runs a runtime has in memory: those hosted here, those being loaded (so concurrent first
 * sends share one load), and those set aside (they cannot be restored under this registry). A run
 * comes in by `start`, by an event sent to it (`hostStored`) or by the hosting (a sweep's claim),
 * and goes by `unload`, `stopAll` or `remove` (lost to another host, gone to sleep). How runs are
 * found and held on the store is the hosting's (`Hosting`), which is built on this table.
 */
export class RunTable implements HostedRuns {
  readonly hosting: Hosting;
  /** The runs restored at start whose recovery rule was applied (`Runtime.restoredAtStart`). */
  readonly restoredAtStart: Array<{ readonly runId: string; readonly machine: string; readonly adopted?: boolean }> =
    [];
  readonly #runs = new Map<string, HostedRun>();
  readonly #loading = new Map<string, Promise<HostedRun>>();
  /** Each set-aside run with the seq it was found at: a run changed since is looked at again (`setAsideAt`). */
  readonly #setAside = new Map<string, { entry: SetAsideRun; seq: number }>();
  /** What every hosted run works with, built once. */
  readonly #context: RunContext<HostedRun>;

  constructor(
    private readonly store: Store,
    context: Omit<RunContext<HostedRun>, 'committer' | 'fence'>,
    hostingOn: (runs: HostedRuns) => Hosting,
  ) {
    this.hosting = hostingOn(this);
    this.#context = { ...context, committer: new GroupCommitter(store), fence: this.hosting };
  }

  hosted(runId: string): HostedRun | undefined {
    return this.#runs.get(runId);
  }

  loading(runId: string): Promise<HostedRun> | undefined {
    return this.#loading.get(runId);
  }

  all(): HostedRun[] {
    return [...this.#runs.values()];
  }

  remove(run: HostedRun): void {
    if (this.#runs.get(run.runId) === run) this.#runs.delete(run.runId);
  }

  setAsideOf(runId: string): SetAsideRun | undefined {
    return this.#setAside.get(runId)?.entry;
  }

  setAsideAt(runId: string, seq: number): SetAsideRun | undefined {
    const setAside = this.#setAside.get(runId);
    if (setAside?.seq === seq) return setAside.entry;
    this.#setAside.delete(runId);
    return undefined;
  }

  passOver(): string[] {
    return [...this.#setAside.keys()];
  }

  /** The set-aside runs, in the order found. */
  setAside(): SetAsideRun[] {
    return [...this.#setAside.values()].map(({ entry }) => entry);
  }

  /** Starts a run: hosted before its initial snapshot is committed, so events its actors send while starting queue behind it. */
  async start(runId: string, machine: string, version: number, input: unknown): Promise<RunSnapshot> {
    if (this.#runs.has(runId) || this.#loading.has(runId)) throw new RunExistsError(runId);
    const { clock, owner, committer, channels } = this.#context;
    const run = new HostedRun(runId, machine, this.#context);
    const now = clock.now();
    const base = { runId, machine, version, input: input ?? null, seq: 0, owner, createdAt: now, updatedAt: now };
    const placeholder: StoredRun = { ...base, status: 'active', state: '', snapshot: null };
    const ready = (async () => {
      run.activate(placeholder, input, false);
      let row: StoredRun;
      // Held before the commit, so the steps its actors cause at once are fenced by it too.
      const lease = this.hosting.holdNew(runId);
      try {
        row = run.initialRow(base);
        const keys = run.initialKeys();
        await committer.commit([
          {
            run: row,
            expectedSeq: undefined,
            wakeAt: run.nextDeadline(),
            ...(keys && { keys }),
            ...(lease && { lease }),
          },
        ]);
        this.hosting.created(runId);
      } catch (error) {
        this.hosting.forget(runId);
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
    channels.committed({ runId, machine, seq: 0, after: snapshot.state, snapshot });
    return snapshot;
  }

  /** Resolves when every queued event of every run has been applied and committed (or refused). */
  async flush(): Promise<void> {
    // Applying events can queue more (actors report back), so repeat until nothing moves.
    for (;;) {
      await Promise.allSettled([...this.#loading.values()]);
      const runs = [...this.#runs.values()];
      await Promise.all(runs.map((r) => r.idle()));
      if (this.#loading.size === 0 && runs.length === this.#runs.size && runs.every((r) => r.isIdle)) return;
    }
  }

  /** Applies what is queued for the run, then unloads it (see `Runtime.unload`). */
  async unload(runId: string): Promise<void> {
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
    if (resting) await this.hosting.release(runId, wakeAt);
    else await this.hosting.expire(runId);
  }

  /** Stops every hosted run (`handOver`: their actors let go) once the loads under way are done; says when each wakes. */
  async stopAll(handOver: boolean): Promise<Array<{ runId: string; wakeAt: number | null }>> {
    await Promise.allSettled([...this.#loading.values()]);
    const runs = [...this.#runs.values()];
    const wakeAts = runs.map((run) => ({ runId: run.runId, wakeAt: run.nextDeadline() }));
    for (const run of runs) run.stop(handOver);
    this.#runs.clear();
    return wakeAts;
  }

  /** Ends a set-aside run, by a person (see `Runtime.endSetAside`). */
  async endSetAside(runId: string, by: { actor: string; reason: string; credential?: string }): Promise<RunSnapshot> {
    const { clock, owner, committer, channels, machines } = this.#context;
    const stored = await this.store.load(runId);
    if (!stored) throw new UnknownRunError(runId);
    // Set aside here, or (a CLI's runtime that restored nothing) one this runtime could not restore.
    if (
      stored.status !== 'active' ||
      (!this.#setAside.has(runId) && restoreProblem(stored, machines.all, clock.now()) === undefined)
    ) {
      throw new RunNotSetAsideError(runId, stored.status);
    }
    await this.hosting.hold(runId);
    const ended = endedRunCommit(stored, machines.all, { ...by, owner, now: clock.now() });
    const lease = this.hosting.commitLease(runId);
    const commit = { ...ended, wakeAt: null, ...(lease && { lease }) };
    await committer.commit([commit]);
    this.#setAside.delete(runId);
    await this.hosting.release(runId, null);
    const snapshot = toRunSnapshot(commit.run);
    channels.committed({
      runId,
      machine: stored.machine,
      seq: commit.run.seq,
      event: commit.event!.event,
      before: stored.state,
      after: stored.state,
      snapshot,
    });
    return snapshot;
  }

  async restoreAtStart(runId: string, machine: string, found: Found): Promise<void> {
    try {
      await this.host(runId, found);
      this.restoredAtStart.push({ runId, machine, ...(found.adopted && { adopted: true }) });
    } catch (error) {
      // Set aside or not, the next run is restored all the same.
      this.#context.channels.error(runId, { type: 'statewright.recover' }, error as Error);
    }
  }

  /** Hosts a stored run in memory, taken by the hosting unless `known`: restores its actor and applies the lifecycle's recovery hook. */
  host(runId: string, known?: Found): Promise<HostedRun> {
    const hosted = this.#runs.get(runId);
    if (hosted) return Promise.resolve(hosted);
    let loading = this.#loading.get(runId);
    if (!loading) {
      loading = this.#restore(runId, known);
      this.#loading.set(runId, loading);
      loading.finally(() => this.#loading.delete(runId)).catch(() => {});
    }
    return loading;
  }

  async #restore(runId: string, known: Found | undefined): Promise<HostedRun> {
    const { clock, owner, channels, machines } = this.#context;
    const found = known ?? (await this.hosting.take(runId));
    if (!found) throw new UnknownRunError(runId);
    const { stored, recovery } = found;
    const setAside = this.setAsideAt(runId, stored.seq);
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
      const lifecycle = machines.lifecycle(stored.machine);
      stage = 'migrate';
      const current = migrate(stored, lifecycle);
      stage = 'inline-child';
      checkNoInlineChild(current.snapshot);
      stage = 'restore';
      run = new HostedRun(runId, stored.machine, this.#context);
      run.activate(current, undefined, true);
      const refused = run.restoreError(current);
      if (refused !== undefined) throw refused;
      stage = 'recover';
      events = recovery
        ? (lifecycle.recover?.({
            runId,
            snapshot: current.snapshot as never,
            previousOwner: recovery.owner && {
              id: recovery.owner.id,
              pid: recovery.owner.pid,
              host: recovery.owner.host,
              alive: recovery.alive,
            },
            now: clock.now(),
          }) ?? [])
        : [];
    } catch (error) {
      run?.unload();
      // Handed over, its agents running: left handed over, for a host that can adopt them; else as after a crash.
      void (found.adopted ? this.hosting.handBack(runId, stored.wakeAt ?? null) : this.hosting.expire(runId));
      // A run that has ended is not restored to move on, and not listed as one that should.
      if (stored.status !== 'active') throw error;
      const entry = setAsideEntry(stored, setAsideReason(stage, error));
      this.#setAside.set(runId, { entry, seq: stored.seq });
      // The caller hears it: a restart's recovery reports it on the error channel and goes on.
      throw new RunSetAsideError(runId, entry.reason, error);
    }
    this.#runs.set(runId, run);
    if (events.length === 0) run.settleActivation(undefined);
    for (const event of events) {
      const refused = (error: Error) => channels.error(runId, event, error);
      try {
        run.enqueue(ownedEvent(event, clock), { actor: 'recovery', reason: `restored by ${owner.id}` }).catch(refused);
      } catch (error) {
        refused(error as Error);
      }
    }
    return run;
  }
}
