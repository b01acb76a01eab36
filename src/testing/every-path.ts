/**
 * `everyPath`: the paths a lifecycle is tested on, as data. Shortest paths that together take every
 * transition (one to every state, by every way in), then every simple path while there are at most
 * `simplePathLimit`; a path that is the beginning of another is left out (driving the longer one
 * takes it too). Event payloads come from `lifecycleSamples`; the events it could not build and the
 * transitions no path takes are returned with the paths, for the report.
 */
import { createActor, type AnyMachineSnapshot, type EventObject, type StateValue } from 'xstate';
import { ManualClock } from '../actor-contract/clock.js';
import type { Lifecycle } from '../../machines/lifecycle.js';
import { lifecycleSamples, type UnbuildableEvent } from './event-samples.js';
import { GraphTooLargeError } from './graph-too-large-error.js';
import { transitionTable } from '../graph/transition-table.js';
import { leafNames, describePath, simplePaths, transitionCoveringPaths, type ModelPath } from './paths.js';

/** One path: the run's input, the events sent after its start, and the state XState's graph predicts after each. */
export interface TestPath {
  readonly id: string;
  /** `shortest`: one of the transition-covering shortest paths; `simple`: a simple path (no state twice). */
  readonly kind: 'shortest' | 'simple';
  readonly input: unknown;
  readonly events: readonly EventObject[];
  /** After the start, then after each event. */
  readonly states: readonly StateValue[];
  /** Its events in order, as a person reads them. */
  readonly description: string;
}

/** A transition no generated path takes, and the shortest path to the state it leaves. */
export interface UncoveredTransition {
  readonly transition: string;
  readonly pathToSource?: string;
}

export interface EveryPathOptions {
  /** Simple paths are added while there are at most this many per input (default 100; 0: none). */
  readonly simplePathLimit?: number;
  /** The most paths returned (default 2000); `truncated` says how many more there were. */
  readonly maxPaths?: number;
  /** The most states the traversal visits (default 50 000): past it, path generation fails with the reason. */
  readonly stateLimit?: number;
  /** The inputs runs start with (default: the lifecycle's `testInputs`, else none). */
  readonly inputs?: readonly unknown[];
  /** Paths from this snapshot (a stored run, restored) instead of from a start. */
  readonly from?: AnyMachineSnapshot;
}

export interface PathSet {
  readonly paths: TestPath[];
  readonly unbuildable: UnbuildableEvent[];
  readonly uncovered: UncoveredTransition[];
  /** Paths generated beyond `maxPaths`, left out. */
  readonly truncated: number;
}

const asTestPath = (path: ModelPath, kind: TestPath['kind'], input: unknown, id: string): TestPath => ({
  id,
  kind,
  input,
  events: path.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => s.event),
  states: path.steps.map((s) => s.state.value),
  description: describePath(path),
});

export function everyPath(lifecycle: Lifecycle, options: EveryPathOptions = {}): PathSet {
  try {
    return generate(lifecycle, options);
  } catch (error) {
    if (error instanceof Error && error.message === 'Traversal limit exceeded')
      throw new GraphTooLargeError(lifecycle.machine.id, options.stateLimit ?? DEFAULT_STATE_LIMIT);
    throw error;
  }
}

const DEFAULT_STATE_LIMIT = 50_000;
/** Where every test clock starts (`ManualClock`'s fixed instant). */
const TEST_CLOCK_START = new ManualClock().now();

function generate(lifecycle: Lifecycle, options: EveryPathOptions): PathSet {
  const { machine } = lifecycle;
  const inputs = options.inputs ?? lifecycle.testInputs ?? [undefined];
  const built = lifecycleSamples(lifecycle);
  const { unbuildable } = built;
  // Every event carries its time, as the runtime stamps it (the test clock's reading at the start), so a
  // guard that reads `at` decides in the graph as it will in the run.
  const samples = (type: string, snapshot: AnyMachineSnapshot) => {
    const events = built.samples(type, snapshot);
    if (type.startsWith('xstate.')) return events;
    return (events.length ? events : [{ type }]).map((event) => ({ at: TEST_CLOCK_START, ...event }));
  };
  const generated: Array<{ path: ModelPath; kind: TestPath['kind']; input: unknown }> = [];
  for (const input of inputs) {
    const pathOptions = {
      samples,
      input,
      stateLimit: options.stateLimit ?? DEFAULT_STATE_LIMIT,
      ...(options.from && { from: options.from }),
      // XState raises these itself, in the step that finishes the state: no test sends them.
      skipEvent: (type: string) => type.startsWith('xstate.done.state.'),
      ...(lifecycle.testContextKey && { contextKey: lifecycle.testContextKey }),
    };
    const shortest = transitionCoveringPaths(machine, pathOptions);
    generated.push(...shortest.map((path) => ({ path, kind: 'shortest' as const, input })));
    const limit = options.simplePathLimit ?? 100;
    if (limit > 0) {
      const simple = simplePaths(machine, { ...pathOptions, simplePathLimit: limit }) ?? [];
      generated.push(...simple.map((path) => ({ path, kind: 'simple' as const, input })));
    }
  }
  const maximal = withoutPrefixes(generated);
  const max = options.maxPaths ?? 2000;
  const paths = maximal.slice(0, max).map((p, i) => asTestPath(p.path, p.kind, p.input, `p${i + 1}`));
  // From a stored run, only what can still happen is asked for: untaken transitions are a start's question.
  const uncovered = options.from
    ? []
    : untaken(
        machine,
        generated.map((g) => ({ path: g.path, initial: createActor(machine, { input: g.input }).getSnapshot() })),
      ).map((transition) => {
        const source = transition.slice(0, transition.indexOf(' --'));
        const toSource = generated
          .map(({ path }) => path.steps.findIndex((s) => within(leafNames(s.state), source)) + 1)
          .map((length, i) => ({ length, path: generated[i]!.path }))
          .filter((p) => p.length > 0)
          .sort((a, b) => a.length - b.length)[0];
        return {
          transition,
          ...(toSource && {
            pathToSource: describePath({ ...toSource.path, steps: toSource.path.steps.slice(0, toSource.length) }),
          }),
        };
      });
  return { paths, unbuildable: unbuildable(), uncovered, truncated: Math.max(0, maximal.length - max) };
}

/** The paths none of whose event lists begins another's (same input), the longest first kept, in generation order. */
function withoutPrefixes<T extends { path: ModelPath; input: unknown }>(paths: T[]): T[] {
  const keyOf = (p: T) =>
    [JSON.stringify(p.input) ?? '', ...p.path.steps.slice(1).map((s) => JSON.stringify(s.event))].join('\n');
  const keys = paths.map(keyOf);
  const unique = new Map<string, number>();
  keys.forEach((key, i) => unique.has(key) || unique.set(key, i));
  const sorted = [...unique.keys()].sort();
  // In sorted order, a key that begins another is followed directly by one it begins (or by itself extended).
  const prefixes = new Set<string>();
  for (let i = 0; i + 1 < sorted.length; i++)
    if (sorted[i + 1]!.startsWith(`${sorted[i]!}\n`)) prefixes.add(sorted[i]!);
  return [...unique.entries()].filter(([key]) => !prefixes.has(key)).map(([, i]) => paths[i]!);
}

/**
 * The rows of the machine's one-step table (`source --event--> target`, by leaf state) that no path
 * takes. A row is taken by a step of its event from a snapshot in which its source is active, into
 * one in which its target is (and its source no longer is, unless the two are the same): so a step
 * in one region of a parallel state takes that region's row. A row of an event XState raises itself
 * (a state's done event) is taken by whichever step finishes the state.
 */
/** Whether a state (a leaf, or a parallel state the table names whole) is among these leaves. */
const within = (leaves: readonly string[], state: string) =>
  leaves.some((leaf) => leaf === state || leaf.startsWith(`${state}.`));

function untaken(
  machine: import('xstate').AnyStateMachine,
  paths: ReadonlyArray<{ path: ModelPath; initial: import('xstate').AnyMachineSnapshot }>,
): string[] {
  const steps: Array<{ before: string[]; event: string; after: string[] }> = [];
  for (const { path, initial } of paths) {
    let before = leafNames(initial);
    for (const step of path.steps) {
      const after = leafNames(step.state);
      if (step.event.type !== 'xstate.init') steps.push({ before, event: step.event.type, after });
      before = after;
    }
  }
  return transitionTable(machine)
    .filter(
      (row) =>
        !steps.some(
          (step) =>
            (step.event === row.event || row.event.startsWith('xstate.done.state.')) &&
            within(step.before, row.source) &&
            within(step.after, row.target) &&
            (row.source === row.target || !within(step.after, row.source)),
        ),
    )
    .map((row) => `${row.source} --${row.event}--> ${row.target}`);
}
