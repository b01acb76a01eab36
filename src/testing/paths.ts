/**
 * Paths through a machine's graph with `xstate/graph`: shortest paths that together take every
 * transition, and every simple path while there are few enough to list.
 *
 * Built on `new TestModel(...)` rather than `createTestModel()`, which refuses machines with
 * `invoke` or `after`.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject } from 'xstate';
import {
  TestModel,
  getAdjacencyMap,
  serializeSnapshot,
  type AdjacencyValue,
  type StatePath,
  type TraversalOptions,
} from 'xstate/graph';
import { allStateNodes, stateName, transitionTable } from '../graph/transition-table.js';
import { activeStateNodes, ownEventDescriptors, recordedHistories } from '../graph/xstate-internals.js';

export type ModelPath = StatePath<AnyMachineSnapshot, EventObject>;

/** Supplies concrete events (with payloads) for an event type in a state; `[]` means "use `{ type }`". */
export type EventSamples = (type: string, snapshot: AnyMachineSnapshot) => EventObject[];

export interface PathOptions {
  samples?: EventSamples;
  input?: unknown;
  /** Simple paths are generated too while there are at most this many. */
  simplePathLimit?: number;
  /**
   * The part of the context that decides which events a state takes. Paths are keyed on the state
   * value and this, so context that only accumulates (costs, counters, timestamps) does not make
   * the graph infinite. Default: the whole context.
   */
  contextKey?: (context: any) => unknown;
  /** Where paths start (a run restored from a store): default the machine's initial snapshot for `input`. */
  from?: AnyMachineSnapshot;
  /** Event types the traversal never sends (XState's own, raised within a step). */
  skipEvent?: (type: string) => boolean;
  /** The most states the traversal visits; past it the traversal throws (`Traversal limit exceeded`). Default: no bound. */
  stateLimit?: number;
}

function serializeFor(options: PathOptions): (snapshot: AnyMachineSnapshot) => string {
  const { contextKey } = options;
  if (!contextKey) return serializeSnapshot;
  return (snapshot) => JSON.stringify({ value: snapshot.value, context: contextKey(snapshot.context) });
}

/**
 * `arrivalInKey`: key states on the transition that arrived too, so shortest paths reach every
 * (state, incoming edge) pair and together take every transition, self-loops included. Simple paths
 * key on the state alone: with arrivals in the key, every ordering of self-loops is a "simple" path.
 */
function traversal(machine: AnyStateMachine, options: PathOptions, arrivalInKey: boolean) {
  const readFromInside = historyReadFromInside(machine);
  const serialize = serializeFor(options);
  return {
    ...(options.input !== undefined && { input: options.input }),
    ...(options.stateLimit !== undefined && { limit: options.stateLimit }),
    ...(options.from && { fromState: options.from }),
    events: (snapshot) =>
      ownEventDescriptors(snapshot)
        .filter((type) => !options.skipEvent?.(type))
        .flatMap((type) => {
          const samples = options.samples?.(type, snapshot) ?? [];
          return samples.length ? samples : [{ type }];
        }),
    // What history states recorded is part of the key too: the same state and context paused
    // from two places are two states, each with its own way back.
    serializeState: (snapshot, event, previous) =>
      `${serialize(snapshot)}${serializeHistory(snapshot, readFromInside)}${arrivalInKey && event ? ` via ${JSON.stringify(event)} from ${JSON.stringify(previous?.value)}` : ''}`,
  } satisfies TraversalOptions<AnyMachineSnapshot, EventObject, unknown>;
}

function testModel(machine: AnyStateMachine, options: PathOptions, arrivalInKey: boolean) {
  return new TestModel<AnyMachineSnapshot, EventObject, unknown>(machine, traversal(machine, options, arrivalInKey));
}

/**
 * What the history nodes would restore, by node id, for those whose record can still matter: a
 * record made while its parent was left is overwritten when the parent is left again, so while
 * the parent is active it is left out of the key (which keeps stale records from multiplying the
 * graph), unless a transition from inside the parent targets the history node and so could read it.
 */
function serializeHistory(snapshot: AnyMachineSnapshot, readFromInside: ReadonlySet<string>): string {
  const active = new Set(activeStateNodes(snapshot).map((n) => n.id));
  const recorded = Object.entries(recordedHistories(snapshot))
    .filter(([id]) => readFromInside.has(id) || !active.has(snapshot.machine.getStateNodeById(id).parent!.id))
    .map(([id, nodes]) => [id, nodes.map((n) => n.id)]);
  return recorded.length ? ` history ${JSON.stringify(Object.fromEntries(recorded))}` : '';
}

const isInside = (node: AnyStateNode, ancestor: AnyStateNode) => ancestor.path.every((key, i) => node.path[i] === key);

/** History nodes that some transition from inside their own parent targets. */
function historyReadFromInside(machine: AnyStateMachine): Set<string> {
  const ids = new Set<string>();
  for (const node of allStateNodes(machine)) {
    for (const definitions of node.transitions.values()) {
      for (const target of definitions.flatMap((d) => d.target ?? [])) {
        if (target.type === 'history' && isInside(node, target.parent!)) ids.add(target.id);
      }
    }
  }
  return ids;
}

/** Paths that together take every transition of the machine. */
export function transitionCoveringPaths(machine: AnyStateMachine, options: PathOptions = {}): ModelPath[] {
  return testModel(machine, options, true).getShortestPaths();
}

/**
 * Every simple path (no state visited twice), or `undefined` when there are more than the limit.
 * They are counted first, stopping at the limit: a machine with loops and counters in its context
 * has far too many to list, and listing them would not end in any useful time.
 */
export function simplePaths(machine: AnyStateMachine, options: PathOptions = {}): ModelPath[] | undefined {
  const limit = options.simplePathLimit ?? 3000;
  if (countSimplePaths(machine, options, limit) > limit) return undefined;
  const paths = testModel(machine, options, false).getSimplePaths();
  return paths.length <= limit ? paths : undefined;
}

/** The number of simple paths from the initial state (each path's prefixes included), up to `stop` + 1. */
function countSimplePaths(machine: AnyStateMachine, options: PathOptions, stop: number): number {
  const { serializeState, ...rest } = traversal(machine, options, false);
  // Keys are branded strings; plain ones are what serializeState gives back.
  const adjacency = getAdjacencyMap(machine, { serializeState, ...rest }) as unknown as Record<
    string,
    AdjacencyValue<AnyMachineSnapshot, EventObject>
  >;
  const start = Object.keys(adjacency)[0]!; // the traversal's first entry is the initial state
  const onPath = new Set<string>();
  let count = 0;
  const visit = (key: string, state: AnyMachineSnapshot): void => {
    count++;
    onPath.add(key);
    for (const { event, state: next } of Object.values(adjacency[key]!.transitions)) {
      if (count > stop) break;
      const nextKey = serializeState(next, event, state);
      if (!onPath.has(nextKey)) visit(nextKey, next);
    }
    onPath.delete(key);
  };
  visit(start, adjacency[start]!.state);
  return count;
}

/** The leaf states a snapshot is in, by name (one per region of a parallel state). */
export function leafNames(snapshot: AnyMachineSnapshot): string[] {
  return activeStateNodes(snapshot)
    .filter((n) => n.type === 'atomic' || n.type === 'final')
    .map(stateName);
}

/** The leaf state name a snapshot is in ("Checking", "working.reviewing"; regions joined by `|`). */
export function leafName(snapshot: AnyMachineSnapshot): string {
  return leafNames(snapshot).join('|');
}

export const edgeKey = (source: string, event: string, target: string) => `${source} --${event}--> ${target}`;

/** The one-step edges a set of paths takes, as `source --event--> target` strings. */
export function takenEdges(paths: readonly ModelPath[], initial: AnyMachineSnapshot): Set<string> {
  const edges = new Set<string>();
  for (const path of paths) {
    let previous = initial;
    for (const step of path.steps) {
      if (step.event.type !== 'xstate.init')
        edges.add(edgeKey(leafName(previous), step.event.type, leafName(step.state)));
      previous = step.state;
    }
  }
  return edges;
}

/** The machine's own one-step edges in the same form as `takenEdges`. */
export function machineEdges(machine: AnyStateMachine): Set<string> {
  return new Set(transitionTable(machine).map((r) => edgeKey(r.source, r.event, r.target)));
}

/** A path as a person reads it: its events in order. */
export const describePath = (path: ModelPath) =>
  path.steps
    .filter((s) => s.event.type !== 'xstate.init')
    .map((s) => s.event.type)
    .join(' → ') || '(initial)';
