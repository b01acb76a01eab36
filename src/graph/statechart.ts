/**
 * The statechart model of any XState machine: its states with their kinds and every transition
 * with the state that defines it, its targets, its guard and what triggers it. Read once from the
 * machine's state nodes; check, the tables and the diagrams derive from it rather than walking
 * XState's nodes each on their own.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { eventWords } from './event-words.js';
import { childSentEvents, higherOrderGuard, spawnedLogic } from './xstate-internals.js';

export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

/** One state of the chart. The root is the state whose path is ''. */
export interface StatechartState {
  /** Its path below the root joined with dots ("checks.lint.running"), as tables name it; '' for the root. */
  readonly path: string;
  readonly id: string;
  readonly key: string;
  readonly kind: StateKind;
  /** A history state's depth. */
  readonly history?: 'deep' | 'shallow';
  /** The path of its parent; undefined for the root. */
  readonly parent?: string;
  /** Its children's paths, in definition order. */
  readonly children: readonly string[];
  /** A compound state's initial child. */
  readonly initial?: string;
  /** The actors it invokes while it is active. */
  readonly invokes: ReadonlyArray<{ readonly id: string; readonly src: string }>;
  /** XState's state node, for what the model does not carry (meta, entry actions). */
  readonly node: AnyStateNode;
}

/** What fires a transition. */
export type Trigger =
  /** An event from outside; `sentBy` names the children known to send it (`sendParent` in their machine). */
  | { readonly kind: 'event'; readonly type: string; readonly sentBy?: readonly string[] }
  /** A wildcard: `'*'` (every event) or `'task.*'` (every event under `task.`). */
  | { readonly kind: 'wildcard'; readonly pattern: string }
  /** An eventless transition, taken as soon as its guard passes. */
  | { readonly kind: 'always' }
  /** A delayed transition: its delay in ms, or the name of a delay the machine's `delays` computes. */
  | { readonly kind: 'after'; readonly delay: number | string }
  /** A compound state reached a final child, or every region of a parallel state did (`onDone`). */
  | { readonly kind: 'state-done'; readonly state: string }
  /** An invoked actor finished (`onDone`). */
  | { readonly kind: 'actor-done'; readonly actor: string }
  /** An invoked actor failed (`onError`). */
  | { readonly kind: 'actor-error'; readonly actor: string }
  /** An invoked actor's snapshot changed (`onSnapshot`). */
  | { readonly kind: 'actor-snapshot'; readonly actor: string };

/** A guard as written: a name with its params, an inline function, or XState's `and`/`or`/`not` of parts. */
export type StatechartGuard =
  | { readonly kind: 'named'; readonly name: string; readonly params?: unknown; readonly raw: unknown }
  | { readonly kind: 'inline'; readonly name: string; readonly raw: unknown }
  | {
      readonly kind: 'and' | 'or' | 'not';
      readonly name: string;
      readonly parts: readonly StatechartGuard[];
      readonly raw: unknown;
    };

/** XState's transition definition, as the model keeps it beside its own fields. */
export interface TransitionDefinitionLike {
  readonly source: AnyStateNode;
  readonly target?: readonly AnyStateNode[];
  readonly eventType: string;
  readonly guard?: unknown;
  readonly reenter?: boolean;
  readonly actions: readonly unknown[];
  readonly meta?: unknown;
}

export interface StatechartTransition {
  /** The path of the state that defines it: a leaf, a compound or parallel state, or the root (''). */
  readonly source: string;
  readonly trigger: Trigger;
  /** XState's event descriptor ('' for `always`). */
  readonly eventType: string;
  /** What fires it as a person reads it (`eventWords`): "SUBMIT", "always", "after 20 s", "when fetchUser is done". */
  readonly label: string;
  /** Its targets' paths (a history state's own path for a history target); empty for a targetless transition. */
  readonly targets: readonly string[];
  /** Exits and enters its source again even where it targets itself or a state inside it. */
  readonly reenter: boolean;
  readonly guard?: StatechartGuard;
  /** Neither target nor actions: XState's way to forbid the event, a refusal rather than a move. */
  readonly forbidden: boolean;
  /** Its place among the transitions of its source for the same trigger (XState takes the first whose guard passes). */
  readonly branch: number;
  readonly definition: TransitionDefinitionLike;
}

export interface Statechart {
  readonly id: string;
  readonly machine: AnyStateMachine;
  /** Every state by path, the root ('') first, then depth first in definition order. */
  readonly states: ReadonlyMap<string, StatechartState>;
  /** Every transition, by source in the order of `states`, each source's in XState's order. */
  readonly transitions: readonly StatechartTransition[];
  /** The transitions a state defines (`always` last), in XState's order. */
  transitionsFrom(path: string): readonly StatechartTransition[];
}

const models = new WeakMap<AnyStateMachine, Statechart>();

/** The statechart model of `machine` (built once per machine). */
export function statechart(machine: AnyStateMachine): Statechart {
  let model = models.get(machine);
  if (!model) {
    model = buildStatechart(machine);
    models.set(machine, model);
  }
  return model;
}

const paths = new WeakMap<AnyStateNode, string>();

/** A state's path as tables name it. */
export function pathOf(node: AnyStateNode): string {
  let path = paths.get(node);
  if (path === undefined) paths.set(node, (path = node.path.join('.')));
  return path;
}

function buildStatechart(machine: AnyStateMachine): Statechart {
  const states = new Map<string, StatechartState>();
  const visit = (node: AnyStateNode) => {
    const children = Object.values(node.states) as AnyStateNode[];
    states.set(pathOf(node), {
      path: pathOf(node),
      id: node.id,
      key: node.key,
      kind: node.type as StateKind,
      ...(node.type === 'history' && { history: node.history === 'deep' ? 'deep' : 'shallow' }),
      ...(node.parent && { parent: pathOf(node.parent) }),
      children: children.map(pathOf),
      ...(node.type === 'compound' && node.initial?.target[0] && { initial: pathOf(node.initial.target[0]) }),
      invokes: node.invoke.map((invoke) => ({ id: invoke.id, src: String(invoke.src) })),
      node,
    });
    for (const child of children) visit(child);
  };
  visit(machine.root);

  const senders = childEventSenders(machine, [...states.values()]);
  const bySource = new Map<string, StatechartTransition[]>();
  const transitions: StatechartTransition[] = [];
  for (const state of states.values()) {
    const own: StatechartTransition[] = [];
    const node = state.node;
    for (const [eventType, definitions] of node.transitions) {
      definitions.forEach((definition, branch) =>
        own.push(
          transitionOf(
            definition as TransitionDefinitionLike,
            triggerOf(node, eventType, senders),
            eventWords(machine, eventType),
            branch,
          ),
        ),
      );
    }
    (node.always ?? []).forEach((definition, branch) =>
      own.push(transitionOf(definition as TransitionDefinitionLike, { kind: 'always' }, 'always', branch)),
    );
    bySource.set(state.path, own);
    transitions.push(...own);
  }
  return {
    id: machine.id,
    machine,
    states,
    transitions,
    transitionsFrom: (path) => bySource.get(path) ?? [],
  };
}

function transitionOf(
  definition: TransitionDefinitionLike,
  trigger: Trigger,
  label: string,
  branch: number,
): StatechartTransition {
  const guard = definition.guard === undefined ? undefined : guardOf(definition.guard);
  return {
    source: pathOf(definition.source),
    trigger,
    eventType: definition.eventType ?? '',
    label,
    targets: (definition.target ?? []).map(pathOf),
    reenter: definition.reenter === true,
    ...(guard && { guard }),
    forbidden: (definition.target ?? []).length === 0 && definition.actions.length === 0,
    branch,
    definition,
  };
}

/** What fires the transitions `node` defines for the descriptor `eventType`, by XState's naming of its own events. */
function triggerOf(node: AnyStateNode, eventType: string, senders: ReadonlyMap<string, string[]>): Trigger {
  if (eventType === `xstate.done.state.${node.id}`) return { kind: 'state-done', state: pathOf(node) };
  const delayed = node.after.find((after) => after.eventType === eventType);
  if (delayed) return { kind: 'after', delay: (delayed as unknown as { delay: number | string }).delay };
  for (const invoke of node.invoke) {
    if (eventType === `xstate.done.actor.${invoke.id}`) return { kind: 'actor-done', actor: invoke.id };
    if (eventType === `xstate.error.actor.${invoke.id}`) return { kind: 'actor-error', actor: invoke.id };
    if (eventType === `xstate.snapshot.${invoke.id}`) return { kind: 'actor-snapshot', actor: invoke.id };
  }
  if (eventType === '*' || eventType.endsWith('.*')) return { kind: 'wildcard', pattern: eventType };
  const sentBy = senders.get(eventType);
  return { kind: 'event', type: eventType, ...(sentBy && { sentBy }) };
}

/** The events each child the machine invokes or spawns by an action sends to it (`sendParent` with a fixed event), by event type. */
function childEventSenders(machine: AnyStateMachine, states: readonly StatechartState[]): Map<string, string[]> {
  const senders = new Map<string, string[]>();
  const note = (child: string, logic: unknown) => {
    for (const type of childSentEvents(logic)) {
      const known = senders.get(type) ?? [];
      if (!known.includes(child)) senders.set(type, [...known, child]);
    }
  };
  const logicOf = (src: unknown) =>
    typeof src === 'string' ? (machine.implementations.actors as Record<string, unknown>)[src] : src;
  for (const { node } of states) {
    const configured = [node.config.invoke ?? []].flat() as Array<{ src?: unknown; id?: string }>;
    node.invoke.forEach((invoke, i) => note(invoke.id, logicOf(configured[i]?.src ?? invoke.src)));
    for (const action of [...node.entry, ...node.exit]) {
      const spawned = spawnedLogic(action);
      if (spawned) note(spawned.id ?? String(spawned.src), logicOf(spawned.src));
    }
  }
  return senders;
}

function guardOf(guard: unknown): StatechartGuard {
  const combined = higherOrderGuard(guard);
  if (combined) {
    const parts = combined.parts.map(guardOf);
    const name =
      combined.kind === 'not'
        ? `!${parts[0]?.name ?? 'inline'}`
        : parts.map((part) => part.name).join(combined.kind === 'and' ? ' & ' : ' | ');
    return { kind: combined.kind, name, parts, raw: guard };
  }
  if (typeof guard === 'string') return { kind: 'named', name: guard, raw: guard };
  if (typeof guard === 'function') return { kind: 'inline', name: guard.name || 'inline', raw: guard };
  if (typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string') {
    const { type, params } = guard as { type: string; params?: unknown };
    return { kind: 'named', name: type, ...(params !== undefined && { params }), raw: guard };
  }
  return { kind: 'inline', name: 'inline', raw: guard };
}
