/**
 * A task project on disk and a runtime over it: the folder holds ferrus.toml (budgets, lease
 * timing, check commands), STATE.json (the task as a file) and the store (.statewright/state.db).
 * One task run per project, as in ferrus: `create` after Complete starts the next task in it.
 *
 * Several processes work on one project (a supervisor, an executor, a person), each with its own
 * runtime on the shared SQLite store. A process's view of the run may be stale; a commit on a
 * stale view is refused by the store (CommitConflictError) and the run reloaded, so `send` tries
 * again on the fresh state, where the machine itself decides (and may refuse a lost lease).
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseError, lifecycles, type AgentId, type TaskEvent, type TaskInput } from '../../machines/index.js';
import type { Clock } from '../runtime/clock.js';
import type { ActorFactory } from '../runtime/run-handle.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { toRunSnapshot, type RunSnapshot } from '../runtime/run-snapshot.js';
import { CommitConflictError, sqliteStore, type Store } from '../stores/index.js';
import { checkRunner } from './check-runner.js';
import { readTaskSettings, type TaskSettings } from './limits.js';
import { writeStateFileOnCommit, type StateFileWriter } from './state-writer.js';

/** The one task run of a project. */
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
export class NoTaskError extends Error {
  override readonly name = 'NoTaskError';
  constructor(readonly dir: string) {
    super(`No task in ${dir}: create one first with \`statewright task create --as supervisor:<vendor>:1 "<what to do>"\`.`);
  }
}

export interface OpenOptions {
  /** This process runs the check commands (the `checkRunner` actor): only the one that checks. */
  readonly runsChecks?: boolean;
  /** Restore runs whose process died and apply the recovery hook (an interrupted check). */
  readonly recover?: boolean;
  readonly clock?: Clock;
}

export class TaskSession {
  #rt!: Runtime;
  #writer!: StateFileWriter;

  private constructor(
    readonly paths: TaskPaths,
    readonly settings: TaskSettings,
    readonly store: Store,
    private readonly actors: Record<string, ActorFactory>,
    private readonly clock: Clock | undefined,
  ) {}

  /** The runtime hosting the task in this process. Replaced when its view of the run went stale. */
  get rt(): Runtime {
    return this.#rt;
  }

  async #host(recover: boolean): Promise<void> {
    this.#rt = await createRuntime({ store: this.store, machines: lifecycles, actors: this.actors, recover, ...(this.clock && { clock: this.clock }) });
    await this.#rt.flush();
    this.#writer = writeStateFileOnCommit(this.#rt, TASK_RUN_ID, this.paths.stateFile);
    // What recovery committed happened before the writer listened.
    if (recover) this.#writer.refresh();
  }

  async #closeRuntime(): Promise<void> {
    try {
      await this.#rt.close();
      await this.#writer.idle();
    } finally {
      this.#writer.stop();
    }
  }

  static async open(dir: string, options: OpenOptions = {}): Promise<TaskSession> {
    const paths = taskPaths(dir);
    const settings = await readTaskSettings(paths.settings);
    await mkdir(join(paths.dir, '.statewright'), { recursive: true });
    const store = sqliteStore(paths.store);
    try {
      const actors: Record<string, ActorFactory> = options.runsChecks
        ? {
            checkRunner: checkRunner({
              commands: settings.checks.commands,
              cwd: paths.dir,
              maxFeedbackLines: settings.limits.maxFeedbackLines,
              logDir: paths.logs,
            }),
          }
        : {};
      const session = new TaskSession(paths, settings, store, actors, options.clock);
      await session.#host(options.recover ?? false);
      return session;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** The task as committed in the store now (not this process's possibly stale view); NoTaskError if none. */
  async current(): Promise<RunSnapshot> {
    const row = await this.store.load(TASK_RUN_ID);
    if (!row) throw new NoTaskError(this.paths.dir);
    return toRunSnapshot(row);
  }

  /** Starts the project's task run (Idle) unless it exists. */
  async ensureRun(): Promise<void> {
    if (await this.store.load(TASK_RUN_ID)) return;
    await this.rt.start('task', { id: TASK_RUN_ID, input: taskInput(this.settings) });
  }

  /**
   * Applies `event` from `agent` and waits for its commit; on a stale view (another process
   * committed first) it is applied again to the reloaded run, where the machine decides.
   */
  async send(agent: AgentId, event: TaskEvent, reason?: string): Promise<RunSnapshot> {
    const stamped = { ...event, agent } as TaskEvent;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#rt.dispatch(TASK_RUN_ID, stamped, { actor: agent, ...(reason && { reason }) });
      } catch (error) {
        if (attempt >= 5) throw error;
        // A conflict: the runtime has reloaded the run. A refusal: it may have been judged on a
        // view older than the store's, which only a new host of the run sees.
        if (error instanceof CommitConflictError) continue;
        if (!(await this.#stale())) throw error;
        await this.#closeRuntime();
        await this.#host(false);
      }
    }
  }

  /** Resolves once STATE.json holds every commit made so far. */
  writerIdle(): Promise<void> {
    return this.#writer.idle();
  }

  /** Whether this process hosts the run at a seq older than the store's. */
  async #stale(): Promise<boolean> {
    const [hosted, stored] = await Promise.all([this.#rt.getSnapshot(TASK_RUN_ID).catch(() => undefined), this.store.load(TASK_RUN_ID)]);
    return hosted !== undefined && stored !== undefined && stored.seq > hosted.seq;
  }

  /**
   * Heartbeats for `agent` every `[lease] heartbeat_interval_secs` while `body` runs. A refused
   * heartbeat (the lease was lost) rejects the returned promise with the `LeaseError` at once.
   */
  async holdingLease<T>(agent: AgentId, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const intervalMs = this.settings.lease.heartbeatIntervalSecs * 1000;
    let lost: (error: Error) => void = () => {};
    const lostLease = new Promise<never>((_, reject) => (lost = reject));
    const beat = async () => {
      while (!controller.signal.aborted) {
        try {
          await sleep(intervalMs, undefined, { signal: controller.signal });
        } catch {
          return; // aborted: the body is done
        }
        try {
          await this.send(agent, { type: 'heartbeat' }, 'heartbeat while working');
        } catch (error) {
          // A lost lease ends the work; a task that moved where no lease is held (a question for
          // a person) only ends the heartbeats, and the body sees the move itself.
          if (!(error instanceof LeaseError)) return;
          controller.abort();
          lost(error);
          return;
        }
      }
    };
    void beat();
    try {
      return await Promise.race([body(controller.signal), lostLease]);
    } finally {
      controller.abort();
    }
  }

  /**
   * Polls the store until `done` holds for the committed task, `signal` aborts, or `timeoutMs`
   * passes (resolves undefined then). Other processes' commits show up only in the store.
   */
  async waitFor(done: (task: RunSnapshot) => boolean, options: { timeoutMs: number; signal?: AbortSignal; pollMs?: number }): Promise<RunSnapshot | undefined> {
    const until = Date.now() + options.timeoutMs;
    for (;;) {
      const snapshot = await this.current();
      if (done(snapshot)) return snapshot;
      if (options.signal?.aborted || Date.now() >= until) return undefined;
      await sleep(options.pollMs ?? 100);
    }
  }

  /** Finishes what is queued, writes STATE.json for the last commit, and closes runtime and store. */
  async close(): Promise<void> {
    try {
      await this.#closeRuntime();
    } finally {
      await this.store.close();
    }
  }
}
