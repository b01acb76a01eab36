/**
 * A corpus path on statewright's real runtime: the machines registered as a user's
 * statewright.config.ts registers them (`defineLifecycle`), a SQLite store in a folder of the
 * caller's, the runtime's clock moved by hand. `restore()` closes the runtime and the store and opens
 * both again, so the run is restored from what was committed, as after a restart.
 */
import { join } from 'node:path';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { defineLifecycle } from '../../src/config/index.js';
import { ManualClock } from '../../src/actor-contract/index.js';
import { createRuntime, type Runtime, type RunVerification, verifyRun } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { Store } from '../../src/stores/store.js';
import type { ForeignMachine, ForeignPath, Persisted, Seen, Settled, Step } from './foreign-machine.js';
import { seenOf } from './run-on-xstate.js';

/** The corpus machines as a config's `machines` would list them, by name. */
export function corpusLifecycles(entries: readonly ForeignMachine[]): Lifecycles {
  return Object.fromEntries(
    entries.map((entry) => [entry.name, defineLifecycle({ name: entry.name, machine: entry.machine })]),
  );
}

const RUN_ID = 'foreign-run';

/** A path on the runtime, one step at a time, with a restore from the store whenever asked. */
export class RuntimeRun {
  readonly clock = new ManualClock();
  readonly #file: string;
  readonly #machines: Lifecycles;
  #store!: Store;
  #runtime!: Runtime;

  private constructor(dir: string, entry: ForeignMachine) {
    this.#file = join(dir, 'runs.db');
    this.#machines = corpusLifecycles([entry]);
  }

  /** Starts the path's run in a fresh store under `dir`, and waits for it to settle. */
  static async start(dir: string, entry: ForeignMachine, path: ForeignPath): Promise<RuntimeRun> {
    const run = new RuntimeRun(dir, entry);
    await run.#open();
    const settled = run.#settled(path.started);
    await run.#runtime.start(entry.name, {
      id: RUN_ID,
      ...(path.input !== undefined && { input: path.input as Record<string, unknown> }),
    });
    await settled;
    return run;
  }

  get runtime(): Runtime {
    return this.#runtime;
  }

  get runId(): string {
    return RUN_ID;
  }

  async seen(): Promise<Seen> {
    return seenOf((await this.#runtime.getSnapshot(RUN_ID)).snapshot);
  }

  /** Takes the step: its event dispatched (a `refused` one must be refused) or the clock moved; then settles. */
  async step(step: Step): Promise<Seen> {
    const settled = this.#settled(step.until);
    if ('send' in step) {
      const dispatched = this.#runtime.dispatch(RUN_ID, step.send);
      if (step.refused) {
        const refusal = await dispatched.then(
          () => undefined,
          (error: unknown) => error,
        );
        if (refusal === undefined) throw new Error(`${step.send.type} was taken; XState ignores it`);
      } else await dispatched;
    } else this.clock.advance(step.advance);
    await this.#runtime.flush();
    await settled;
    return this.seen();
  }

  /** Closes the runtime and its store, then opens both again on the same file: the run restored from its last commit. */
  async restore(): Promise<Seen> {
    await this.close();
    await this.#open();
    return this.seen();
  }

  async close(): Promise<void> {
    await this.#runtime.close();
    await this.#store.close();
  }

  async #open(): Promise<void> {
    this.#store = sqliteStore(this.#file);
    this.#runtime = await createRuntime({ store: this.#store, machines: this.#machines, clock: this.clock });
  }

  /**
   * Resolves once a committed snapshot of the run satisfies `until` (at once without one): listening
   * from before the step, so a commit the step makes is not missed; rejects with the runtime's error.
   */
  #settled(until: Settled | undefined): Promise<void> {
    if (until === undefined) return Promise.resolve();
    const runtime = this.#runtime;
    return new Promise<void>((resolve, reject) => {
      const done = (error?: unknown) => {
        unsubscribe();
        stopErrors();
        if (error === undefined) resolve();
        else reject(error);
      };
      const unsubscribe = runtime.subscribe((step) => {
        if (step.runId === RUN_ID && until(step.snapshot.snapshot as Persisted)) done();
      });
      const stopErrors = runtime.onError((error) => done(error));
    });
  }
}

/**
 * Every `seen` of a path on the runtime: after the start, then after each step (and, with `restore`,
 * after a restore following each); and what `verify` says of the run at its end (its log replayed
 * through the machine, against what the store holds).
 */
export async function runOnRuntime(
  dir: string,
  entry: ForeignMachine,
  path: ForeignPath,
  options: { restore?: boolean } = {},
): Promise<{ seen: Seen[]; verification: RunVerification }> {
  const run = await RuntimeRun.start(dir, entry, path);
  try {
    const seen = [options.restore ? await run.restore() : await run.seen()];
    for (const step of path.steps) {
      await run.step(step);
      seen.push(options.restore ? await run.restore() : await run.seen());
    }
    await run.runtime.flush();
    return { seen, verification: await verifyRun(run.runtime.store, run.runtime.machines, run.runId) };
  } finally {
    await run.close();
  }
}
