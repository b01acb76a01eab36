import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { stateName } from './state-name.js';
import { statechart } from './statechart.js';

export { stateName };

/** One edge of a machine's one-step graph: in `source`, `event` leads to `target`. */
export interface TransitionRow {
  readonly source: string;
  readonly event: string;
  readonly target: string;
  /** The guard's name when the edge is taken only if the guard passes. */
  readonly guard?: string;
  /** True when the edge has no target: the state stays, only actions run. */
  readonly internal?: boolean;
}

/** Every state node below the root, in definition order (depth first). */
export function allStateNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const visit = (node: AnyStateNode) => {
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      out.push(child);
      visit(child);
    }
  };
  visit(machine.root);
  return out;
}

/** The states a run can rest in: atomic and final nodes (compound and history nodes are not). */
export function leafStates(machine: AnyStateMachine): AnyStateNode[] {
  return allStateNodes(machine).filter((n) => n.type === 'atomic' || n.type === 'final');
}

/** Names of the top-level final states, in definition order. */
export function finalStateNames(machine: AnyStateMachine): string[] {
  return leafStates(machine)
    .filter((n) => n.type === 'final' && n.parent === machine.root)
    .map(stateName);
}

/**
 * The leaves a transition into `node` can end in: compound nodes enter their initial child; a
 * history node restores what its parent was in when last left, so it can end in any state it may
 * have recorded (deep: every leaf below the parent; shallow: every child, entered by its initial
 * state) or in its default when nothing is recorded yet.
 */
function resolveTargets(node: AnyStateNode): AnyStateNode[] {
  if (node.type === 'compound') {
    const initial = node.initial?.target[0];
    if (initial) return resolveTargets(initial);
  }
  if (node.type === 'history' && node.parent) {
    const parent: AnyStateNode = node.parent;
    const recorded =
      node.history === 'deep'
        ? allStateNodesBelow(parent).filter((n) => n.type === 'atomic' || n.type === 'final')
        : (Object.values(parent.states) as AnyStateNode[]).filter((n) => n.type !== 'history').flatMap(resolveTargets);
    return [...new Set([...recorded, ...historyDefaults(node).flatMap(resolveTargets)])];
  }
  return [node];
}

/** Where a history node leads before anything is recorded: its `target`, else its parent's initial state (XState's `resolveHistoryDefaultTransition`). */
export function historyDefaults(node: AnyStateNode): AnyStateNode[] {
  const parent = node.parent!;
  const target = (node.config as { target?: string | string[] }).target;
  if (target === undefined) return parent.type === 'parallel' ? [parent] : [...(parent.initial?.target ?? [])];
  return [target]
    .flat()
    .map((path) =>
      path.startsWith('#')
        ? node.machine.getStateNodeById(path.slice(1))
        : path.split('.').reduce<AnyStateNode>((at, key) => at.states[key]!, parent),
    );
}

function allStateNodesBelow(node: AnyStateNode): AnyStateNode[] {
  return (Object.values(node.states) as AnyStateNode[]).flatMap((child) => [child, ...allStateNodesBelow(child)]);
}

/** A row of the one-step table with the transition it comes from (its guard and `meta` as defined). */
export interface TransitionEdge extends TransitionRow {
  readonly definition: { readonly guard?: unknown; readonly meta?: unknown };
}

/**
 * The one-step table of a machine: for every leaf state, every event it accepts (its own and its
 * ancestors', child first as XState evaluates them) and the state it leads to. Read from the
 * machine's statechart model, so it is exact for the machine as defined, guards included as names.
 */
export function transitionTable(machine: AnyStateMachine): TransitionRow[] {
  return transitionEdges(machine).map(({ definition: _, ...row }) => row);
}

/** The one-step table (`transitionTable`), each row with the transition definition it comes from. */
export function transitionEdges(machine: AnyStateMachine): TransitionEdge[] {
  const model = statechart(machine);
  const rows: TransitionEdge[] = [];
  for (const leaf of leafStates(machine)) {
    const source = stateName(leaf);
    for (let node: AnyStateNode | undefined = leaf; node; node = node.parent) {
      for (const transition of model.transitionsFrom(stateName(node))) {
        // `always` takes no event; a forbidden transition is a refusal rather than an edge.
        if (transition.trigger.kind === 'always' || transition.forbidden) continue;
        const { eventType: event, definition } = transition;
        const guard = transition.guard?.name;
        const targets = definition.target ?? [];
        if (targets.length === 0) {
          rows.push({ source, event, target: source, internal: true, ...(guard && { guard }), definition });
          continue;
        }
        const leaves = new Set(targets.flatMap(resolveTargets).map(stateName));
        for (const target of leaves) rows.push({ source, event, target, ...(guard && { guard }), definition });
      }
    }
  }
  return rows;
}

/** Every event type the machine names anywhere, in first-seen order. */
export function eventTypes(machine: AnyStateMachine): string[] {
  return [...new Set(transitionTable(machine).map((row) => row.event))];
}

/** Valid event types per leaf state, in the machine's definition order; `[]` for final states. */
export function validEventsByState(machine: AnyStateMachine): Map<string, string[]> {
  const byState = new Map<string, string[]>(leafStates(machine).map((n) => [stateName(n), []]));
  for (const row of transitionTable(machine)) {
    const events = byState.get(row.source)!;
    if (!events.includes(row.event)) events.push(row.event);
  }
  return byState;
}
