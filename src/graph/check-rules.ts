/**
 * The rules of `statewright check`, one table: each rule's kind (a correctness rule fails the
 * check; a lint rule warns, unless the lifecycle is strict) and how it finds what breaks it, read
 * from the machine's statechart model and its configuration graph. A new rule is one more entry.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { budgetOf } from './budget-guard.js';
import { type ConfigurationGraph, type ConfigurationStep, MAX_CONFIGURATIONS } from './configurations.js';
import { declaration, transitionDeclaration } from './state-declarations.js';
import type { Statechart, StatechartState, Trigger } from './statechart.js';
import { higherOrderGuard, spawnedLogic } from './xstate-internals.js';
import { inlineSpawns } from './inline-spawns.js';

/** What a rule learns of the machine it checks. */
export interface RuleInput {
  readonly machine: AnyStateMachine;
  readonly model: Statechart;
  readonly graph: ConfigurationGraph;
  /** The event types the lifecycle defines outside the machine (`Lifecycle.events`). */
  readonly events: readonly string[];
  /** The states the lifecycle says a run waits for a person in (`Lifecycle.waitsFor`). */
  readonly waitsFor: readonly string[];
}

/** One place a rule is broken: the state it concerns ('' for none), how a run gets there, and what to do. */
export interface Finding {
  readonly state: string;
  readonly path: string;
  readonly message: string;
  /** What the rule could not decide: said as a warning, whatever the rule's kind. */
  readonly undecided?: boolean;
}

export interface RuleDefinition {
  /** `correctness`: a run can go wrong, the check fails. `lint`: a smell, a warning unless the lifecycle is strict. */
  readonly kind: 'correctness' | 'lint';
  readonly summary: string;
  readonly find: (input: RuleInput) => Finding[];
}

export const CHECK_RULES = {
  unreachable: {
    kind: 'correctness',
    summary: 'no state that no sequence of events reaches from the initial state',
    find: unreachable,
  },
  'no-way-out': {
    kind: 'correctness',
    summary: 'no non-final state a run can rest in without any transition out of it',
    find: noWayOut,
  },
  'unhandled-event': {
    kind: 'correctness',
    summary: 'no event the lifecycle defines that no reachable state handles',
    find: unhandledEvents,
  },
  'inline-child': {
    kind: 'correctness',
    summary:
      'no child spawned from inline logic (`spawnChild(childMachine)`), which cannot be stored and restored: the runtime refuses the step',
    find: inlineChildFindings,
  },
  'waits-without-deadline': {
    kind: 'lint',
    summary:
      'no state that only an outside event moves, with neither a deadline (an invoked timer, `after`, or meta `deadline`) nor meta `waitsFor` naming who it waits for',
    find: waitsWithoutDeadline,
  },
  'unbounded-cycle': {
    kind: 'lint',
    summary:
      'no cycle that passes no budget guard (`budgetGuard`) and is not declared with meta `unbounded` and a reason',
    find: unboundedCycles,
  },
} as const satisfies Record<string, RuleDefinition>;

export type CheckRule = keyof typeof CHECK_RULES;

/**
 * The atomic and final states below the root, the ones a run rests in. A machine that is its root
 * alone (an actor that takes events for ever, a reducer) is not stuck there: it is what it is for.
 */
const leaves = (model: Statechart): StatechartState[] =>
  [...model.states.values()].filter((s) => s.path !== '' && (s.kind === 'atomic' || s.kind === 'final'));

/** Every resting configuration a state is active in. */
function restingIn(graph: ConfigurationGraph, state: string) {
  return [...graph.resting.values()].filter((c) => c.active.has(state));
}

function unreachable({ model, graph }: RuleInput): Finding[] {
  // Beyond the exploration's bound nothing is proven unreachable, nor stuck: said once, as a warning.
  if (!graph.complete)
    return [
      {
        state: '',
        path: '',
        message: `the machine has more configurations than the check explores (more than ${MAX_CONFIGURATIONS} configurations, or more than 256 ways to choose among guards in one step: its parallel regions multiply): it decides neither unreachable nor no-way-out beyond them. Check it in parts, or join regions that move together`,
        undecided: true,
      },
    ];
  return leaves(model)
    .filter((s) => !graph.reached.has(s.path))
    .map((s) => ({
      state: s.path,
      path: '',
      message: `'${s.path}' cannot be reached from the initial state: remove it, or add a transition into it`,
    }));
}

function noWayOut({ model, graph }: RuleInput): Finding[] {
  if (!graph.complete) return [];
  const findings: Finding[] = [];
  for (const state of leaves(model)) {
    if (state.kind === 'final') continue;
    const resting = restingIn(graph, state.path);
    if (resting.length === 0) continue;
    const keys = new Set(resting.map((c) => c.key));
    if (graph.steps.some((step) => keys.has(step.from) && step.left.has(state.path))) continue;
    findings.push({
      state: state.path,
      path: resting[0]!.path,
      message: `'${state.path}' is not final and nothing leads out of it: a run there is stuck for ever. Add a transition out, or make it final`,
    });
  }
  return findings;
}

function unhandledEvents({ model, graph, events }: RuleInput): Finding[] {
  const patterns = model.transitions
    .filter((t) => graph.reached.has(t.source) && !t.forbidden && t.trigger.kind !== 'always')
    .map((t) => t.eventType);
  const handled = (event: string) =>
    patterns.some((p) => p === event || p === '*' || (p.endsWith('.*') && `${event}.`.startsWith(p.slice(0, -1))));
  return events
    .filter((event) => !handled(event))
    .map((event) => ({
      state: '',
      path: '',
      message: `the event '${event}' is defined but no reachable state handles it: handle it, or remove it from the lifecycle's events`,
    }));
}

function inlineChildFindings({ model }: RuleInput): Finding[] {
  return inlineSpawns(model).map(({ state, id, where }) => ({
    state,
    path: '',
    message: `${where === 'entry' || where === 'exit' ? `its ${where}` : `its transition ${where}`} spawns ${
      id === undefined ? 'a child' : `child '${id}'`
    } from inline logic, which statewright cannot store and restore (the runtime refuses that step): name the logic in setup({ actors: { name: logic } }) and spawn it by that name (spawnChild('name'))`,
  }));
}

function waitsWithoutDeadline({ model, graph, waitsFor }: RuleInput): Finding[] {
  const findings: Finding[] = [];
  for (const state of leaves(model)) {
    if (state.kind === 'final') continue;
    const resting = restingIn(graph, state.path);
    if (resting.length === 0) continue;
    const node = state.node;
    const declared =
      declaration(node, 'waitsFor') !== undefined ||
      waitsFor.some((s) => state.path === s || state.path.startsWith(`${s}.`));
    if (declared || hasDeadline(model, node) || actorsRunIn(node)) continue;
    const keys = new Set(resting.map((c) => c.key));
    const moves = graph.steps.filter((step) => keys.has(step.from) && step.left.has(state.path));
    // Left only by what needs no outside event (an `always` a guard held back), or also by what
    // the run's own timers, actors and children do (one in another region): it does not wait on the outside alone.
    if (moves.length === 0 || !moves.every((step) => outside(step.trigger))) continue;
    const events = [...new Set(moves.map((step) => step.label))];
    findings.push({
      state: state.path,
      path: resting[0]!.path,
      message: `only an outside event moves '${state.path}' (${events.join(', ')}) and it arms no deadline: give it a timer (an invoked deadline actor or \`after\`), or declare who it waits for with meta { waitsFor: '...' }`,
    });
  }
  return findings;
}

/** Whether the state (or an ancestor) has a timer the check can see: an `after`, an invoked timer actor, or a declared deadline. */
function hasDeadline(model: Statechart, node: AnyStateNode): boolean {
  for (let at: AnyStateNode | undefined = node; at; at = at.parent) {
    if (model.transitionsFrom(at.path.join('.')).some((t) => t.trigger.kind === 'after')) return true;
    if (at.invoke.some((invoke) => invoke.src === 'deadline')) return true;
  }
  return declaration(node, 'deadline') !== undefined;
}

/** Whether an actor other than a timer runs while the run is in the state (invoked, or spawned on entry): its reports move the run, not only outside events. */
function actorsRunIn(node: AnyStateNode): boolean {
  for (let at: AnyStateNode | undefined = node; at; at = at.parent) {
    if (at.invoke.some((invoke) => invoke.src !== 'deadline')) return true;
    if (at.entry.some((action) => spawnedLogic(action) !== undefined)) return true;
  }
  return false;
}

/** A trigger only someone outside the run pulls: an event no child of it is known to send, or a wildcard. */
const outside = (trigger: Trigger) =>
  (trigger.kind === 'event' && trigger.sentBy === undefined) || trigger.kind === 'wildcard';

/**
 * Cycles of resting configurations that nothing bounds. A step is bounded by a budget guard, or
 * declared unbounded on one of its transitions or on a state it leaves or enters. A step fired by
 * something a state arms once per entry (its `after`, its invoked actor's done or error) goes round
 * only in a cycle that exits that state again: the root's, never.
 */
function unboundedCycles({ machine, model, graph }: RuleInput): Finding[] {
  if (declaration(machine.root, 'unbounded') !== undefined) return [];
  let edges = graph.steps.filter((step) => step.exited.size > 0 && !bounded(step, machine, model));
  for (let changed = true; changed; ) {
    changed = false;
    const parts = stronglyConnected(edges);
    const kept = edges.filter((step) => {
      const part = parts.get(step.from);
      if (part === undefined || part !== parts.get(step.to)) return false;
      const exitedInPart = new Set(
        edges.filter((e) => parts.get(e.from) === part && parts.get(e.to) === part).flatMap((e) => [...e.exited]),
      );
      return !step.fired.every((t) => armedOncePerEntry(t.trigger.kind) && !exitedInPart.has(t.source));
    });
    changed = kept.length !== edges.length;
    edges = kept;
  }
  const findings: Finding[] = [];
  const parts = stronglyConnected(edges);
  const seen = new Set<number>();
  for (const step of edges) {
    const part = parts.get(step.from)!;
    if (seen.has(part)) continue;
    seen.add(part);
    const cycle = pathBack(step.from, edges, (key) => parts.get(key) === part);
    const described = [graph.resting.get(step.from)!.name, ...cycle.map((e) => e.description.trim())].join(' ');
    // Configurations that differ only in what history records go round the same way: said once.
    if (findings.some((f) => f.path === described)) continue;
    findings.push({
      state: graph.resting.get(step.from)!.name,
      path: described,
      message: `the cycle ${described} passes no budget guard: bound one of its transitions with budgetGuard(...), or declare it with meta { unbounded: '<why it may go round for ever>' } on a state or transition of it`,
    });
  }
  return findings;
}

const armedOncePerEntry = (kind: string) => kind === 'after' || kind === 'actor-done' || kind === 'actor-error';

function bounded(step: ConfigurationStep, machine: AnyStateMachine, model: Statechart): boolean {
  if (step.transitions.some((t) => transitionDeclaration(t.definition, 'unbounded') !== undefined)) return true;
  const moved = [...step.exited, ...step.entered].map((path) => model.states.get(path)!);
  if (moved.some((s) => s.path !== '' && declaration(s.node, 'unbounded') !== undefined)) return true;
  return step.transitions.some((t) => hasBudget(t.definition.guard, machine, 0));
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

/** Each configuration's strongly connected part of the graph `edges` make (Tarjan), by a number per part. */
function stronglyConnected(edges: readonly ConfigurationStep[]): Map<string, number> {
  const out = new Map<string, ConfigurationStep[]>();
  for (const edge of edges) out.set(edge.from, [...(out.get(edge.from) ?? []), edge]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const part = new Map<string, number>();
  let parts = 0;
  const visit = (at: string) => {
    index.set(at, index.size);
    low.set(at, index.get(at)!);
    stack.push(at);
    onStack.add(at);
    for (const edge of out.get(at) ?? []) {
      if (!index.has(edge.to)) {
        visit(edge.to);
        low.set(at, Math.min(low.get(at)!, low.get(edge.to)!));
      } else if (onStack.has(edge.to)) low.set(at, Math.min(low.get(at)!, index.get(edge.to)!));
    }
    if (low.get(at) !== index.get(at)) return;
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      part.set(top, parts);
      if (top === at) break;
    }
    parts++;
  };
  for (const edge of edges) if (!index.has(edge.from)) visit(edge.from);
  return part;
}

/** The shortest way from `start` back to itself through configurations `inside` admits. */
function pathBack(
  start: string,
  edges: readonly ConfigurationStep[],
  inside: (key: string) => boolean,
): ConfigurationStep[] {
  const via = new Map<string, ConfigurationStep>();
  const queue = [start];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const edge of edges) {
      if (edge.from !== at || !inside(edge.to)) continue;
      if (edge.to === start) {
        const cycle = [edge];
        for (let back = at; back !== start; back = via.get(back)!.from) cycle.unshift(via.get(back)!);
        return cycle;
      }
      if (via.has(edge.to)) continue;
      via.set(edge.to, edge);
      queue.push(edge.to);
    }
  }
  throw new Error(`no way back to '${start}' inside its strongly connected part`);
}
