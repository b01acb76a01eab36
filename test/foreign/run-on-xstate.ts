/**
 * A corpus path on plain XState, as its authors run it: `createActor` on a simulated clock, the same
 * events. What it sees after each settled step is what statewright must commit.
 */
import { type AnyActorRef, createActor, SimulatedClock, type StateValue, waitFor } from 'xstate';
import type { ForeignMachine, ForeignPath, Persisted, Seen, Settled, Step } from './foreign-machine.js';

/**
 * A child spawned without an id: XState names it `x:N` from a counter of the whole process (`x:1`
 * only when it is the process's second actor), statewright by the step that spawned it
 * (`x:<seq>.<n>`, the same in every process and in a replay). Such an id is compared by where it
 * first appears in the snapshot, not by its spelling.
 */
const GENERATED_ID = /"x:\d+(?:\.\d+)?"/g;

function generatedIdsByAppearance(json: string): string {
  const names = new Map<string, string>();
  return json.replace(GENERATED_ID, (id) => {
    if (!names.has(id)) names.set(id, `"generated id ${names.size + 1}"`);
    return names.get(id)!;
  });
}

/** What a store would keep of an actor, as JSON: XState's persisted snapshot, read the way `Seen` says. */
export function seenOf(persisted: unknown): Seen {
  const snapshot = JSON.parse(generatedIdsByAppearance(JSON.stringify(persisted))) as {
    value: Seen['value'];
    context?: unknown;
    children?: Record<string, unknown>;
    status: string;
    output?: unknown;
  };
  return {
    value: snapshot.value,
    context: snapshot.context ?? null,
    children: Object.keys(snapshot.children ?? {}).sort(),
    status: snapshot.status,
    output: snapshot.output ?? null,
  };
}

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
