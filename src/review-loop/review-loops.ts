/**
 * The runner: review loops on the durable runtime. It provides the machine's actors
 * (`startAgents`, `primary`, `reviewer`), keeps each loop's manifest and transcript in step with
 * every committed step (`rt.subscribe`), and starts, resumes and cancels loops.
 *
 * The seed's iteration flow is the machine plus its actors: the machine refuses work in a terminal
 * state and counts the iteration as it enters `working`; the primary actor drains the bridge into
 * its prompt, runs the agent and turns its output into DONE / FAIL / PRIMARY_FINISHED; the machine
 * moves to `reviewing`; the reviewer actor does the same and its verdict (PASS / FAIL /
 * CHANGES_REQUESTED) takes the loop back to `working` or to its end.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tightenPrivate } from '../os/private-files.js';
import { join, resolve } from 'node:path';
import { agentProcess as sharedAgentProcess } from '../actors/agent-process.js';
import type { ReviewLoopContext } from '../../machines/review-loop/index.js';
import { systemClock, type Clock } from '../actor-contract/clock.js';
import { isProcessAlive } from '../os/process-identity.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import { RunExistsError } from '../runtime/errors.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';
import type { AttachedService, LifecycleWiring } from '../runtime/lifecycle-wiring.js';
import type { Runtime } from '../runtime/runtime.js';
import { loopAgent } from './loop-agent.js';
import { LoopRecord, runDirOf, type EntryListener } from './loop-record.js';
import { loadManifest, ManifestError, manifestPath } from './manifest.js';
import { machineInput, resolveLoopSettings, type LoopSettingsInput } from './settings.js';
import { startAgents } from './start-agents.js';
import { StatewrightError } from '../errors.js';

export const REVIEW_LOOP = 'review-loop';
export const DEFAULT_LOOPS_DIR = '.statewright/loops';

export interface ReviewLoopsOptions {
  /** Where each loop's directory (manifest, transcript, bridge, agent logs) is kept. */
  dir?: string;
  /** What agents' relative working directories and programs resolve against; default the current directory. */
  baseDir?: string;
  /** SIGTERM to SIGKILL when an agent is stopped (default: the agent actor's, 5 s). */
  graceMs?: number;
  /** The agent process actor to wrap (default the shared src/actors/agent-process.ts). */
  agentProcess?: ActorFactory;
  clock?: Clock;
}

export interface LoopOutcome {
  readonly runId: string;
  readonly state: 'complete' | 'failed';
  /** Iterations run. */
  readonly iterations: number;
  readonly reason?: string;
  readonly error?: string;
  readonly runDir: string;
}

export interface LoopRun {
  readonly runId: string;
  readonly runDir: string;
  /** Resolves when the loop completes or fails, its manifest and transcript written. */
  readonly finished: Promise<LoopOutcome>;
}

/** No loop with that run id or agent session id. */
export class LoopNotFoundError extends StatewrightError {
  readonly kind = 'not-found';
  override readonly name = 'LoopNotFoundError';
}

/** The loop is being run by another live process: resuming it here would run its agents twice. */
export class LoopBusyError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'LoopBusyError';
}

/**
 * The review-loop lifecycle wired like every other: the machine's actors (`startAgents`, `primary`,
 * `reviewer`) for `createRuntime({ actors })`, and the runner attached to that runtime. The runner
 * picks a loop up only when asked (`start`, `resume`); a runtime created with `recover: false`
 * restores none by itself, and one that restored loops at start has their files reconciled on attach.
 */
export function reviewLoopLifecycle(options: ReviewLoopsOptions = {}): LifecycleWiring<ReviewLoops> {
  const loops = new ReviewLoops(options);
  return {
    actors: { [REVIEW_LOOP]: loops.actors },
    async attach(runtime) {
      await loops.attach(runtime);
      return loops;
    },
  };
}

export class ReviewLoops implements AttachedService {
  readonly dir: string;
  readonly baseDir: string;
  readonly clock: Clock;
  /** @internal The machine's actors, given to the runtime by `reviewLoopLifecycle(...).actors`. */
  readonly actors: Record<string, ActorFactory>;
  readonly #records = new Map<string, Promise<LoopRecord>>();
  /** The same records once open. */
  readonly #open = new Map<string, LoopRecord>();
  readonly #waiting = new Map<string, (snapshot: RunSnapshot) => void>();
  #runtime: Runtime | undefined;
  #unsubscribe: (() => void) | undefined;
  /** The loops started or resumed here that may still be running: stopped on close. */
  readonly #hosted = new Set<string>();

  /** @internal Made by `reviewLoopLifecycle`, whose actors need it before the runtime exists. */
  constructor(options: ReviewLoopsOptions = {}) {
    this.baseDir = resolve(options.baseDir ?? process.cwd());
    this.dir = resolve(this.baseDir, options.dir ?? DEFAULT_LOOPS_DIR);
    this.clock = options.clock ?? systemClock;
    const agent = {
      record: (runId: string) => this.record(runId),
      agentProcess: options.agentProcess ?? sharedAgentProcess,
      ...(options.graceMs !== undefined && { graceMs: options.graceMs }),
    };
    this.actors = {
      // Read from the loop's files: the actor of a run restored in init starts before anything else loads them.
      startAgents: (run) =>
        startAgents(() =>
          this.record(run.runId).then((r) => ({ settings: r.settings, baseDir: r.manifest.repoPath ?? this.baseDir })),
        )(run),
      primary: loopAgent('primary', agent),
      reviewer: loopAgent('reviewer', agent),
    };
  }

  /**
   * @internal Keeps every review loop's files in step with the runtime's committed steps; the
   * loops the runtime restored at start are reconciled with their files first.
   */
  async attach(runtime: Runtime): Promise<void> {
    if (this.#runtime)
      throw new Error(
        'These review loops are attached to a runtime already: make another reviewLoopLifecycle(...) for another runtime.',
      );
    this.#runtime = runtime;
    tightenPrivate('the review loops folder', [this.dir]);
    this.#unsubscribe = runtime.subscribe((step) => {
      if (step.machine !== REVIEW_LOOP) return;
      const report = (error: Error) => this.#report(step.runId, error);
      const ended = () => {
        if (step.snapshot.status !== 'active') this.#waiting.get(step.runId)?.(step.snapshot);
      };
      const sync = (record: LoopRecord) => {
        const written = record.committed(step);
        if (step.snapshot.status === 'active') return written;
        // The loop has ended: its caller hears of it once its files are written, or could not be.
        return written.then(() => record.settled()).finally(ended);
      };
      // At once when the files are open, so the step's entries precede what its actors write next.
      const open = this.#open.get(step.runId);
      if (open) sync(open).catch(report);
      else
        this.record(step.runId)
          .then(sync, (error: Error) => {
            ended();
            throw error;
          })
          .catch(report);
    });
    for (const { runId } of runtime.restoredAtStart.filter((run) => run.machine === REVIEW_LOOP)) {
      this.#hosted.add(runId);
      // A loop whose files are gone is not the attach's failure: its own actor fails it, and this says why.
      await this.record(runId)
        .then(async (record) => record.reconcile(await runtime.getSnapshot(runId)))
        .catch((error: Error) => this.#report(runId, error));
    }
  }

  /** The loop's files, opened once per run. */
  record(runId: string): Promise<LoopRecord> {
    let record = this.#records.get(runId);
    if (!record) {
      record = LoopRecord.open(runDirOf(this.dir, runId), { clock: this.clock });
      this.#remember(runId, record);
    }
    return record;
  }

  /** Starts a loop; resolves once it is running, with a promise of its end. */
  async start(
    settingsInput: LoopSettingsInput,
    options: { id?: string; onEntry?: EntryListener } = {},
  ): Promise<LoopRun> {
    const runtime = this.#attached();
    const settings = resolveLoopSettings(settingsInput);
    const runId =
      options.id ??
      `loop-${new Date(this.clock.now())
        .toISOString()
        .replace(/[-:.TZ]/g, '')
        .slice(0, 14)}-${Math.random().toString(36).slice(2, 8)}`;
    const runDir = runDirOf(this.dir, runId);
    // Never over another loop's files: its manifest and transcript would be overwritten.
    if ((await runtime.store.load(runId)) || existsSync(manifestPath(runDir))) throw new RunExistsError(runId);
    // The files exist before the run: its first actor reads the settings from them.
    const record = LoopRecord.create(runDir, runId, settings, {
      clock: this.clock,
      repoPath: this.baseDir,
      ...(options.onEntry && { listener: options.onEntry }),
    });
    this.#remember(runId, record);
    const finished = this.#finished(runId);
    await record;
    this.#hosted.add(runId);
    await runtime.start(REVIEW_LOOP, { id: runId, input: machineInput(settings) });
    return { runId, runDir, finished };
  }

  /** Starts a loop and waits for its end. */
  async run(
    settingsInput: LoopSettingsInput,
    options: { id?: string; onEntry?: EntryListener } = {},
  ): Promise<LoopOutcome> {
    return (await this.start(settingsInput, options)).finished;
  }

  /**
   * Resumes a loop by its run id or by one of its agents' session ids, from its stored state and
   * iteration: an agent still running from before is adopted, one that finished meanwhile has its
   * output read, and an iteration whose agent never started starts it. A loop already over
   * resolves at once with how it ended.
   */
  async resume(id: string, options: { onEntry?: EntryListener } = {}): Promise<LoopRun> {
    const runtime = this.#attached();
    const runId = await this.findRun(id);
    const stored = await runtime.store.load(runId);
    if (!stored)
      throw new LoopNotFoundError(
        `Loop '${runId}' has a directory in ${this.dir} but no run in this store: it was run on another store (pass the same --store), or it never started (start it again).`,
      );
    const owner = stored.owner;
    if (
      stored.status === 'active' &&
      owner &&
      owner.id !== runtime.owner.id &&
      owner.pid !== process.pid &&
      isProcessAlive(owner)
    ) {
      throw new LoopBusyError(
        `Loop '${runId}' is being run by process ${owner.pid} on ${owner.host}. Stop that process first (Ctrl-C), or wait for it to finish.`,
      );
    }
    const record = await this.record(runId);
    if (options.onEntry) record.listen(options.onEntry);
    const runDir = runDirOf(this.dir, runId);
    const snapshot = await runtime.getSnapshot(runId);
    await record.reconcile(snapshot);
    if (snapshot.status !== 'active') return { runId, runDir, finished: Promise.resolve(this.#outcome(snapshot)) };
    const finished = this.#finished(runId);
    this.#hosted.add(runId);
    // Hosting the run restores its actor: the state's agent is invoked again. The event itself is
    // one the machine does not take, dropped without a trace (ifAccepted).
    await runtime.dispatch(runId, { type: 'statewright.resume' }, { actor: 'runner', ifAccepted: true });
    return { runId, runDir, finished };
  }

  /** Fails the loop as "context cancelled"; leaving the state stops its agent (SIGTERM, then SIGKILL). */
  async cancel(runId: string, why = 'cancelled'): Promise<void> {
    await this.#attached().dispatch(runId, { type: 'CANCEL' }, { actor: 'runner', reason: why, ifAccepted: true });
  }

  /** The run id for a run id or an agent session id, looked up in the loops' manifests. */
  async findRun(id: string): Promise<string> {
    const direct = await loadManifest(runDirOf(this.dir, id)).catch((error: unknown) =>
      error instanceof ManifestError ? undefined : Promise.reject(error),
    );
    if (direct) return direct.manifest.runId;
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const matches: string[] = [];
    for (const name of names) {
      const loaded = await loadManifest(join(this.dir, name)).catch(() => undefined);
      if (loaded && Object.values(loaded.manifest.sessions).includes(id)) matches.push(loaded.manifest.runId);
    }
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1)
      throw new LoopNotFoundError(
        `Session '${id}' belongs to ${matches.length} loops (${matches.join(', ')}): resume one by its run id.`,
      );
    throw new LoopNotFoundError(
      `No loop with run id or agent session id '${id}' in ${this.dir}. List the loops there, or check --loops-dir.`,
    );
  }

  /**
   * Stops the loops started or resumed here that are still running (their agents with them; each
   * stays in the store as committed, to resume later), detaches, and closes their files. The
   * runtime and the store stay open.
   */
  async close(): Promise<void> {
    const runtime = this.#runtime;
    if (runtime) await Promise.all([...this.#hosted].map((runId) => runtime.unload(runId)));
    this.#hosted.clear();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    const records = await Promise.allSettled([...this.#records.values()]);
    this.#records.clear();
    this.#open.clear();
    await Promise.all(records.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
  }

  #remember(runId: string, record: Promise<LoopRecord>): void {
    this.#records.set(runId, record);
    record.then(
      (opened) => this.#open.set(runId, opened),
      () => this.#records.delete(runId),
    );
  }

  #finished(runId: string): Promise<LoopOutcome> {
    return new Promise((resolve) => {
      this.#waiting.set(runId, (snapshot) => {
        this.#waiting.delete(runId);
        resolve(this.#outcome(snapshot));
      });
    });
  }

  #outcome(snapshot: RunSnapshot): LoopOutcome {
    const context = snapshot.context as ReviewLoopContext;
    return {
      runId: snapshot.runId,
      state: snapshot.state as 'complete' | 'failed',
      iterations: context.iteration,
      ...(context.reason !== undefined && { reason: context.reason }),
      ...(context.error !== undefined && { error: context.error }),
      runDir: runDirOf(this.dir, snapshot.runId),
    };
  }

  /** A loop's files could not be kept in step: said, never swallowed; the run itself goes on. */
  #report(runId: string, error: Error): void {
    process.stderr.write(`statewright: loop '${runId}': its files could not be updated: ${error.message}\n`);
  }

  #attached(): Runtime {
    if (!this.#runtime)
      throw new Error(
        'These review loops are not attached to a runtime: use reviewLoopLifecycle(...).attach(runtime).',
      );
    return this.#runtime;
  }
}
