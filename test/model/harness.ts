/**
 * The every-path harness: paths generated from a machine's graph with `xstate/graph`, replayed step
 * by step against a system under test, checking the state after every step.
 *
 * Built on `new TestModel(...)` rather than `createTestModel()`, which refuses machines with
 * `invoke` or `after`; the later lifecycles have both.
 */
import { __unsafe_getAllOwnEventDescriptors, type AnyMachineSnapshot, type AnyStateMachine, type EventObject, type StateValue } from 'xstate';
import { TestModel, serializeSnapshot, type AdjacencyMap, type AdjacencyValue, type StatePath } from 'xstate/graph';
import { stateName, transitionTable } from '../../src/graph/index.js';

export type ModelPath = StatePath<AnyMachineSnapshot, EventObject>;

/** Supplies concrete events (with payloads) for an event type in a state; `[]` means "use `{ type }`". */
export type EventSamples = (type: string, snapshot: AnyMachineSnapshot) => EventObject[];

export interface PathOptions {
  samples?: EventSamples;
  input?: unknown;
  /** Simple paths are generated too while there are at most this many. */
  simplePathLimit?: number;
}

// The arriving transition is part of the key, so the shortest paths reach every (state, incoming
// edge) pair: together they take every transition, self-loops included.
const serializeState = (snapshot: AnyMachineSnapshot, event: EventObject | undefined, previous: AnyMachineSnapshot | undefined) =>
  `${serializeSnapshot(snapshot)}${event ? ` via ${JSON.stringify(event)} from ${JSON.stringify(previous?.value)}` : ''}`;

function testModel(machine: AnyStateMachine, options: PathOptions) {
  return new TestModel<AnyMachineSnapshot, EventObject, unknown>(machine, {
    ...(options.input !== undefined && { input: options.input }),
    events: (snapshot) =>
      __unsafe_getAllOwnEventDescriptors(snapshot).flatMap((type) => {
        const samples = options.samples?.(type, snapshot) ?? [];
        return samples.length ? samples : [{ type }];
      }),
    serializeState,
  });
}

/** Paths that together take every transition of the machine. */
export function transitionCoveringPaths(machine: AnyStateMachine, options: PathOptions = {}): ModelPath[] {
  return testModel(machine, options).getShortestPaths();
}

/**
 * Every simple path (no state visited twice), or `undefined` when there are more than the limit.
 * They are counted first (before `TestModel` drops paths that are prefixes of others, so the count
 * is an upper bound), stopping at the limit: a machine with several self-loop events (an agent
 * reporting its pid, its session) has exponentially many, and enumerating them all would not end.
 */
export function simplePaths(machine: AnyStateMachine, options: PathOptions = {}): ModelPath[] | undefined {
  const limit = options.simplePathLimit ?? 3000;
  const model = testModel(machine, options);
  if (countSimplePaths(model.getAdjacencyMap(), limit + 1) > limit) return undefined;
  return model.getSimplePaths();
}

/** The number of simple paths from the initial state (the empty one included), counting no further than `cap`. */
function countSimplePaths(map: AdjacencyMap<AnyMachineSnapshot, EventObject>, cap: number): number {
  // Keys are branded strings; the map is read by the keys it produced.
  const adjacency = map as unknown as Record<string, AdjacencyValue<AnyMachineSnapshot, EventObject>>;
  const [start] = Object.keys(adjacency);
  if (start === undefined) return 0;
  const onPath = new Set<string>();
  let count = 0;
  const visit = (key: string) => {
    count++;
    onPath.add(key);
    const { state, transitions } = adjacency[key]!;
    for (const { event, state: next } of Object.values(transitions)) {
      if (count >= cap) break;
      const nextKey = serializeState(next, event, state);
      if (!onPath.has(nextKey) && adjacency[nextKey]) visit(nextKey);
    }
    onPath.delete(key);
  };
  visit(start);
  return count;
}

/** The leaf state name a snapshot is in ("Checking", "working.reviewing"). */
export function leafName(snapshot: AnyMachineSnapshot): string {
  const leaves = snapshot._nodes.filter((n) => n.type === 'atomic' || n.type === 'final');
  return leaves.map(stateName).join('|');
}

/** The one-step edges a set of paths takes, as `source --event--> target` strings. */
export function takenEdges(paths: ModelPath[], initial: AnyMachineSnapshot): Set<string> {
  const edges = new Set<string>();
  for (const path of paths) {
    let previous = initial;
    for (const step of path.steps) {
      if (step.event.type !== 'xstate.init') edges.add(edgeKey(leafName(previous), step.event.type, leafName(step.state)));
      previous = step.state;
    }
  }
  return edges;
}

export const edgeKey = (source: string, event: string, target: string) => `${source} --${event}--> ${target}`;

/** The machine's own one-step edges in the same form as `takenEdges`. */
export function machineEdges(machine: AnyStateMachine): Set<string> {
  return new Set(transitionTable(machine).map((r) => edgeKey(r.source, r.event, r.target)));
}

/** A system under test: something that starts a run and applies events to it. */
export interface Driver {
  start(): Promise<StateValue>;
  send(event: EventObject): Promise<StateValue>;
  stop(): Promise<void>;
}

export interface StepFailure {
  path: string;
  step: number;
  event: string;
  expected: StateValue;
  actual: StateValue | string;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
export const describePath = (path: ModelPath) =>
  path.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => s.event.type).join(' → ') || '(initial)';

/** Replays one path against a fresh driver; returns the first step whose state differs, if any. */
export async function replay(path: ModelPath, driver: Driver): Promise<StepFailure | undefined> {
  try {
    let index = 0;
    for (const step of path.steps) {
      const actual = step.event.type === 'xstate.init' ? await driver.start() : await driver.send(step.event);
      if (!same(actual, step.state.value)) {
        return { path: describePath(path), step: index, event: step.event.type, expected: step.state.value, actual };
      }
      index++;
    }
    return undefined;
  } finally {
    await driver.stop();
  }
}

/** Replays every path, each against its own driver, and collects the failures. */
export async function replayAll(paths: ModelPath[], makeDriver: () => Driver): Promise<StepFailure[]> {
  const failures: StepFailure[] = [];
  for (const path of paths) {
    const failure = await replay(path, makeDriver()).catch((error: unknown) => ({
      path: describePath(path),
      step: -1,
      event: '(error)',
      expected: path.state.value,
      actual: String(error),
    }));
    if (failure) failures.push(failure);
  }
  return failures;
}
