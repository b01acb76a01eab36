/**
 * A task project on disk and the task API on a runtime: the folder holds ferrus.toml (budgets, lease
 * timing, check commands), STATE.json (the task as a file) and the store (.statewright/state.db).
 * One task run per project, as in ferrus: `create` after Complete starts the next task in it.
 *
 * Several processes work on one project (a supervisor, an executor, a person), each with its own
 * runtime on the shared SQLite store. A process's view of the run may be stale; a commit on a
 * stale view is refused by the store (CommitConflictError) and the run reloaded, so `send` tries
 * again on the fresh state, where the machine itself decides (and may refuse a lost lease).
 */
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseError, type AgentId, type TaskEvent, type TaskInput } from '../../machines/index.js';
import type { AttachedService, LifecycleWiring } from '../runtime/lifecycle-wiring.js';
import type { Runtime } from '../runtime/runtime.js';
import { toRunSnapshot, type RunSnapshot } from '../runtime/run-snapshot.js';
import { CommitConflictError, RunHeldError, sqliteStore, type Store } from '../stores/index.js';
import { checkRunner } from './check-runner.js';
import { readTaskSettings, type TaskSettings } from './limits.js';
import { writeStateFileOnCommit, type StateFileWriter } from './state-writer.js';
import { StatewrightError } from '../errors.js';
import { makePrivateDir } from '../os/private-files.js';
import { holdingLease, pollTask } from './hold-lease.js';

/** The one task run of a project. */
/** The state in which a check runs, hosted by the process that runs it. */
const CHECK_RUNNING = 'Active.Working.Checking.Running';

export const TASK_RUN_ID = 'task';

export interface TaskPaths {
  readonly dir: string;
  readonly settings: string;
  readonly stateFile: string;
  readonly store: string;
  readonly logs: string;
}

export function taskPaths(dir: string): TaskPaths {
  const root = resolve(dir);
  return {
    dir: root,
    settings: join(root, 'ferrus.toml'),
    stateFile: join(root, 'STATE.json'),
    store: join(root, '.statewright', 'state.db'),
    logs: join(root, '.statewright', 'logs'),
  };
}

/** The machine's input from the settings: budgets and lease TTL. */
export function taskInput(settings: TaskSettings): TaskInput {
  return {
    limits: { maxCheckRetries: settings.limits.maxCheckRetries, maxReviewCycles: settings.limits.maxReviewCycles },
    lease: { ttlMs: settings.lease.ttlSecs * 1000 },
  };
}

/** There is no task in the project folder yet. */
export class NoTaskError extends StatewrightError {
  readonly kind = 'not-found';
  override readonly name = 'NoTaskError';
  constructor(readonly dir: string) {
    super(
      `No task in ${dir}: create one first with \`statewright task create --as supervisor:<vendor>:1 "<what to do>"\`.`,
    );
  }
}

export interface TaskLifecycleOptions {
  /** The project folder: ferrus.toml, STATE.json, and the store `openTaskStore(dir)` opens. */
  readonly dir: string;
  /** This process runs the check commands (the `checkRunner` actor): only the one that checks. */
  readonly runsChecks?: boolean;
}

/** Opens the project's store (`.statewright/state.db` in it), which every process on the project shares. */
export async function openTaskStore(dir: string): Promise<Store> {
  const paths = taskPaths(dir);
  await makePrivateDir(join(paths.dir, '.statewright'));
  return sqliteStore(paths.store);
}

/**
 * The task lifecycle wired like every other: the check runner for `createRuntime({ actors })`
 * (in the one process that runs checks), and the project's task API attached to that runtime,
 * which keeps STATE.json in step with its commits. A runtime created with `recover: true`
 * declares an interrupted check so; attaching writes STATE.json for what it committed.
 * ferrus.toml is read once, when the API attaches or a check starts, whichever comes first.
 */
export function taskLifecycle(options: TaskLifecycleOptions): LifecycleWiring<TaskSession> {
  const paths = taskPaths(options.dir);
  let settings: Promise<TaskSettings> | undefined;
  const loadSettings = () => (settings ??= readTaskSettings(paths.settings));
  const checks = async () => {
    const { checks, limits } = await loadSettings();
    return { commands: checks.commands, cwd: paths.dir, maxFeedbackLines: limits.maxFeedbackLines, logDir: paths.logs };
  };
  return {
    actors: options.runsChecks ? { task: { checkRunner: checkRunner(checks) } } : {},
    attach: async (runtime) => {
      const session = new TaskSession(paths, await loadSettings(), runtime);
      await runtime.flush();
      session.follow(runtime.restoredAtStart.some((run) => run.runId === TASK_RUN_ID && run.machine === 'task'));
      return session;
    },
  };
}

export class TaskSession implements AttachedService {
  #writer!: StateFileWriter;

  /** @internal Made by `taskLifecycle(...).attach(runtime)`. */
  constructor(
    readonly paths: TaskPaths,
    readonly settings: TaskSettings,
    /** The runtime the task API is attached to (its owner closes it). */
    readonly runtime: Runtime,
  ) {}

  /** @internal Keeps STATE.json in step from now on; `restored`: write it for what recovery committed before. */
  follow(restored: boolean): void {
    this.#writer = writeStateFileOnCommit(this.runtime, TASK_RUN_ID, this.paths.stateFile);
    if (restored) this.#writer.refresh();
  }

  /** The task as committed in the store now (not this process's possibly stale view); NoTaskError if none. */
  async current(): Promise<RunSnapshot> {
    const row = await this.runtime.store.load(TASK_RUN_ID);
    if (!row) throw new NoTaskError(this.paths.dir);
    return toRunSnapshot(row);
  }

  /** Starts the project's task run (Idle) unless it exists. */
  async ensureRun(): Promise<void> {
    if (await this.runtime.store.load(TASK_RUN_ID)) return;
    await this.runtime.start('task', { id: TASK_RUN_ID, input: taskInput(this.settings) });
  }

  /**
   * Applies `event` from `agent` and waits for its commit; on a stale view (another process
   * committed first) it is applied again to the reloaded run, where the machine decides.
   */
  async send(agent: AgentId, event: TaskEvent, reason?: string): Promise<RunSnapshot> {
    const stamped = { ...event, agent } as TaskEvent;
    for (let attempt = 1; ; attempt++) {
      try {
        const sent = await this.runtime.dispatch(TASK_RUN_ID, stamped, { actor: agent, ...(reason && { reason }) });
        // On a store with leases the process that hosts the run holds it: each process on the
        // project hosts it only while it applies an event, or while its own check runs.
        if (this.runtime.store.leases && sent.state !== CHECK_RUNNING) await this.runtime.unload(TASK_RUN_ID);
        return sent;
      } catch (error) {
        if (attempt >= 5) throw error;
        // A conflict: the runtime has reloaded the run. Held by another process applying an event
        // (or running its check): try again shortly. A refusal: it may have been judged on a
        // view older than the store's, which only a new host of the run sees.
        if (error instanceof CommitConflictError) continue;
        if (error instanceof RunHeldError) {
          await sleep(100 * attempt);
          continue;
        }
        if (!(await this.#stale())) throw error;
        await this.runtime.unload(TASK_RUN_ID);
      }
    }
  }

  /** Resolves once STATE.json holds every commit made so far. */
  writerIdle(): Promise<void> {
    return this.#writer.idle();
  }

  /** Whether this process hosts the run at a seq older than the store's. */
  async #stale(): Promise<boolean> {
    const [hosted, stored] = await Promise.all([
      this.runtime.getSnapshot(TASK_RUN_ID).catch(() => undefined),
      this.runtime.store.load(TASK_RUN_ID),
    ]);
    return hosted !== undefined && stored !== undefined && stored.seq > hosted.seq;
  }

  /**
   * Heartbeats for `agent` every `[lease] heartbeat_interval_secs` while `body` runs. A refused
   * heartbeat (the lease was lost) rejects the returned promise with the `LeaseError` at once.
   */
  async holdingLease<T>(agent: AgentId, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return holdingLease(
      () => this.send(agent, { type: 'heartbeat' }, 'heartbeat while working'),
      this.settings.lease.heartbeatIntervalSecs * 1000,
      (error) => error instanceof LeaseError,
      body,
    );
  }

  /**
   * Polls the store until `done` holds for the committed task, `signal` aborts, or `timeoutMs`
   * passes (resolves undefined then). Other processes' commits show up only in the store.
   */
  async waitFor(
    done: (task: RunSnapshot) => boolean,
    options: { timeoutMs: number; signal?: AbortSignal; pollMs?: number },
  ): Promise<RunSnapshot | undefined> {
    return pollTask(() => this.current(), done, options);
  }

  /**
   * Finishes what is queued, writes STATE.json for the last commit, and detaches; the task run is
   * unloaded here (it lives on in the store). The runtime and the store stay open.
   */
  async close(): Promise<void> {
    try {
      await this.runtime.unload(TASK_RUN_ID);
      await this.#writer.idle();
    } finally {
      this.#writer.stop();
    }
  }
}
