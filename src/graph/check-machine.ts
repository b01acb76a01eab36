import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { budgetOf } from './budget-guard.js';
import { declaration, transitionDeclaration } from './state-declarations.js';
import { leafStates, stateName, transitionEdges, type TransitionEdge } from './transition-table.js';
import { higherOrderGuard } from './xstate-internals.js';

/** The rules `statewright check` holds every machine to. */
export const CHECK_RULES = {
  unreachable: 'no state that no sequence of events reaches from the initial state',
  'no-way-out': 'no non-final state without a transition to another state',
  'waits-without-deadline':
    'no state that only an outside event moves, with neither a deadline (an invoked timer, `after`, or meta `deadline`) nor meta `waitsFor` naming who it waits for',
  'unbounded-cycle':
    'no cycle that passes no budget guard (`budgetGuard`) and is not declared with meta `unbounded` and a reason',
  'unhandled-event': 'no event the lifecycle defines that no reachable state handles',
} as const;

export type CheckRule = keyof typeof CHECK_RULES;

/** One broken rule: which, where, how a run gets there, and what to do. */
export interface CheckViolation {
  readonly machine: string;
  readonly rule: CheckRule;
  /** The state it concerns ('' for an event no state handles). */
  readonly state: string;
  /** How a run gets there from the initial state ("pending -ENQUEUE-> queued"), or the cycle that goes round; '' when nothing reaches it. */
  readonly path: string;
  readonly message: string;
}

export interface CheckOptions {
  /** The event types the lifecycle defines outside the machine (`Lifecycle.events`). */
  readonly events?: readonly string[];
  /** The states the lifecycle says a run waits for a person in (`Lifecycle.waitsFor`), as meta `waitsFor` would. */
  readonly waitsFor?: readonly string[];
}

/** Holds one machine to every rule of `CHECK_RULES`; an empty list means it passes. */
export function checkMachine(machine: AnyStateMachine, options: CheckOptions = {}): CheckViolation[] {
  const edges = transitionEdges(machine);
  const leaves = leafStates(machine);
  const nodes = new Map(leaves.map((node) => [stateName(node), node]));
  const moves = edges.filter((e) => !e.internal);
  const paths = shortestPaths(stateName(initialLeaf(machine.root)), moves);
  const violations: CheckViolation[] = [];
  const violation = (rule: CheckRule, state: string, message: string, path = paths.get(state) ?? '') =>
    violations.push({ machine: machine.id, rule, state, path, message });

  for (const [name, node] of nodes) {
    if (!paths.has(name)) {
      violation(
        'unreachable',
        name,
        `'${name}' cannot be reached from the initial state: remove it, or add a transition into it`,
      );
      continue;
    }
    if (node.type === 'final') continue;
    const out = moves.filter((e) => e.source === name);
    if (!out.some((e) => e.target !== name)) {
      violation(
        'no-way-out',
        name,
        `'${name}' is not final and no event leads out of it: a run there is stuck for ever. Add a transition out, or make it final`,
      );
      continue;
    }
    const declaredWait =
      declaration(node, 'waitsFor') !== undefined ||
      options.waitsFor?.some((state) => name === state || name.startsWith(`${state}.`));
    if (!hasDeadline(node) && !actorsRunIn(node) && !declaredWait) {
      violation(
        'waits-without-deadline',
        name,
        `only an outside event moves '${name}' (${[...new Set(out.map((e) => e.event))].join(', ')}) and it arms no deadline: give it a timer (an invoked deadline actor or \`after\`), or declare who it waits for with meta { waitsFor: '...' }`,
      );
    }
  }

  if (declaration(machine.root, 'unbounded') === undefined) {
    const unbounded = moves.filter((e) => paths.has(e.source) && !bounded(e, machine, nodes));
    for (const cycle of cyclesIn(unbounded)) {
      violation(
        'unbounded-cycle',
        cycle[0]!.source,
        `the cycle ${describe(cycle)} passes no budget guard: bound one of its transitions with budgetGuard(...), or declare it with meta { unbounded: '<why it may go round for ever>' } on a state or transition of it`,
        describe(cycle),
      );
    }
  }

  const handled = new Set(edges.filter((e) => paths.has(e.source)).map((e) => e.event));
  for (const event of options.events ?? []) {
    if (!handled.has(event))
      violation(
        'unhandled-event',
        '',
        `the event '${event}' is defined but no reachable state handles it: handle it, or remove it from the lifecycle's events`,
        '',
      );
  }
  return violations;
}

function initialLeaf(node: AnyStateNode): AnyStateNode {
  const initial = node.initial?.target[0];
  return initial ? initialLeaf(initial) : node;
}

/** For every reachable state, the shortest path to it ("a -E-> b -F-> c"; the initial state is its own name). */
function shortestPaths(initial: string, moves: readonly TransitionEdge[]): Map<string, string> {
  const paths = new Map([[initial, initial]]);
  const queue = [initial];
  for (let state = queue.shift(); state !== undefined; state = queue.shift()) {
    for (const edge of moves) {
      if (edge.source !== state || paths.has(edge.target)) continue;
      paths.set(edge.target, `${paths.get(state)} -${edge.event}-> ${edge.target}`);
      queue.push(edge.target);
    }
  }
  return paths;
}

/** Whether the state (or an ancestor) has a timer the check can see: an `after`, an invoked timer actor, or a declared deadline. */
function hasDeadline(node: AnyStateNode): boolean {
  for (let at: AnyStateNode | undefined = node; at; at = at.parent) {
    if (at.after.length > 0) return true;
    if (at.invoke.some((invoke) => invoke.src === 'deadline')) return true;
  }
  return declaration(node, 'deadline') !== undefined;
}

/** Whether an actor other than a timer runs while the run is in the state: its reports move the run, not only outside events. */
function actorsRunIn(node: AnyStateNode): boolean {
  for (let at: AnyStateNode | undefined = node; at; at = at.parent) {
    if (at.invoke.some((invoke) => invoke.src !== 'deadline')) return true;
  }
  return false;
}

/** An edge a cycle may take only finitely often: a budget guard, or declared unbounded on the edge or either end. */
function bounded(edge: TransitionEdge, machine: AnyStateMachine, nodes: ReadonlyMap<string, AnyStateNode>): boolean {
  if (transitionDeclaration(edge.definition, 'unbounded') !== undefined) return true;
  if (
    declaration(nodes.get(edge.source)!, 'unbounded') !== undefined ||
    declaration(nodes.get(edge.target)!, 'unbounded') !== undefined
  )
    return true;
  return hasBudget(edge.definition.guard, machine, 0);
}

function hasBudget(guard: unknown, machine: AnyStateMachine, depth: number): boolean {
  if (guard === undefined || depth > 32) return false;
  if (typeof guard === 'string') return hasBudget(machine.implementations.guards[guard], machine, depth + 1);
  if (typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string') {
    return hasBudget(machine.implementations.guards[(guard as { type: string }).type], machine, depth + 1);
  }
  if (budgetOf(guard) !== undefined) return true;
  const combined = higherOrderGuard(guard);
  // Only an `and` holds its parts all at once; an `or` may pass without its budget.
  return combined?.kind === 'and' && combined.parts.some((part) => hasBudget(part, machine, depth + 1));
}

/**
 * One cycle per strongly connected part of the graph `edges` make (Tarjan), each as the edges
 * that go round it from its first state: the graph has a cycle exactly when one is listed.
 */
function cyclesIn(edges: readonly TransitionEdge[]): TransitionEdge[][] {
  const out = new Map<string, TransitionEdge[]>();
  for (const edge of edges) out.set(edge.source, [...(out.get(edge.source) ?? []), edge]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const parts: string[][] = [];
  const visit = (state: string) => {
    index.set(state, index.size);
    low.set(state, index.get(state)!);
    stack.push(state);
    onStack.add(state);
    for (const edge of out.get(state) ?? []) {
      if (!index.has(edge.target)) {
        visit(edge.target);
        low.set(state, Math.min(low.get(state)!, low.get(edge.target)!));
      } else if (onStack.has(edge.target)) low.set(state, Math.min(low.get(state)!, index.get(edge.target)!));
    }
    if (low.get(state) !== index.get(state)) return;
    const part: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      part.push(top);
      if (top === state) break;
    }
    parts.push(part.reverse());
  };
  for (const edge of edges) if (!index.has(edge.source)) visit(edge.source);
  const cycles: TransitionEdge[][] = [];
  for (const part of parts) {
    const inside = new Set(part);
    const start = part[0]!;
    const self = (out.get(start) ?? []).find((e) => e.target === start);
    if (part.length === 1) {
      if (self) cycles.push([self]);
      continue;
    }
    cycles.push(pathBack(start, out, inside));
  }
  return cycles;
}

/** The shortest way from `start` back to itself inside one strongly connected part. */
function pathBack(
  start: string,
  out: ReadonlyMap<string, TransitionEdge[]>,
  inside: ReadonlySet<string>,
): TransitionEdge[] {
  const via = new Map<string, TransitionEdge>();
  const queue = [start];
  for (let state = queue.shift(); state !== undefined; state = queue.shift()) {
    for (const edge of out.get(state) ?? []) {
      if (!inside.has(edge.target)) continue;
      if (edge.target === start) {
        const cycle = [edge];
        for (let at = state; at !== start; at = via.get(at)!.source) cycle.unshift(via.get(at)!);
        return cycle;
      }
      if (via.has(edge.target)) continue;
      via.set(edge.target, edge);
      queue.push(edge.target);
    }
  }
  throw new Error(`no way back to '${start}' inside its strongly connected part`);
}

const describe = (cycle: readonly TransitionEdge[]) =>
  [cycle[0]!.source, ...cycle.map((e) => `-${e.event}-> ${e.target}`)].join(' ');
