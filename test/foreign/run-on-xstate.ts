/**
 * A corpus path on plain XState, as its authors run it: `createActor` on a simulated clock, the same
 * events. What it sees after each settled step is what statewright must commit.
 */
import { type AnyActorRef, createActor, SimulatedClock, type StateValue, waitFor } from 'xstate';
import { seenOf, type Seen } from '../../src/testing/seen.js';
import type { ForeignMachine, ForeignPath, Persisted, Settled, Step } from './foreign-machine.js';

export { seenOf };

/** A path on plain XState, one step at a time: `seen` after the start settled, and after each step. */
export class XStateRun {
  readonly #actor: AnyActorRef;
  readonly #clock = new SimulatedClock();
  /** Every state value the actor has shown since the last `values()`, settled or passed through. */
  #values: StateValue[] = [];

  private constructor(entry: ForeignMachine, path: ForeignPath) {
    this.#actor = createActor(entry.machine, { clock: this.#clock, input: path.input });
    this.#actor.subscribe({ next: (snapshot) => this.#values.push(snapshot.value), error: () => {} });
  }

  static async start(entry: ForeignMachine, path: ForeignPath): Promise<XStateRun> {
    const run = new XStateRun(entry, path);
    run.#actor.start();
    await run.#settle(path.started);
    return run;
  }

  seen(): Seen {
    return seenOf(this.#actor.getPersistedSnapshot());
  }

  /** The state values shown since the last call (the first call: since the start), settled or passed through. */
  values(): StateValue[] {
    const values = this.#values;
    this.#values = [];
    return values;
  }

  async step(step: Step): Promise<void> {
    if ('send' in step) this.#actor.send(step.send);
    else this.#clock.increment(step.advance);
    await this.#settle(step.until);
  }

  stop(): void {
    this.#actor.stop();
  }

  async #settle(until: Settled | undefined): Promise<void> {
    if (until) await waitFor(this.#actor, () => until(this.#actor.getPersistedSnapshot() as unknown as Persisted));
  }
}

/** Every `seen` of a path on plain XState: after the start, then after each step. */
export async function runOnXState(entry: ForeignMachine, path: ForeignPath): Promise<Seen[]> {
  const run = await XStateRun.start(entry, path);
  try {
    const all = [run.seen()];
    for (const step of path.steps) {
      await run.step(step);
      all.push(run.seen());
    }
    return all;
  } finally {
    run.stop();
  }
}
