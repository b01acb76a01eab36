/**
 * XState's own event types as a person reads them. XState names the events it makes for a machine
 * after its internals (`xstate.after.20000.expense.managerApproval`, `xstate.done.state.expense.checks`,
 * `xstate.done.actor.0.expense.loading`); everything statewright shows a person (explain, history,
 * status, refusals, the view) says instead "after 20 s", "when both regions of checks finish",
 * "when fetchUser is done", read from the machine that made them. An event from outside keeps its name.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** Where an event comes from: a sender outside the run, or XState itself for the machine. */
export type EventOrigin =
  | 'outside'
  | 'after'
  | 'done.state'
  | 'done.actor'
  | 'error.actor'
  | 'snapshot'
  | 'wildcard'
  | 'init'
  | 'stop'
  | 'route';

/**
 * Which kind of event `type` is. `xstate.route` is XState's own name but an outside sender sends it
 * (`{ type: 'xstate.route', to: '#id' }`); a wildcard (`*`, `order.*`) stands for many events.
 */
export function eventOrigin(type: string): EventOrigin {
  if (type === '*' || type.endsWith('.*')) return 'wildcard';
  if (!type.startsWith('xstate.')) return 'outside';
  if (type.startsWith('xstate.after.')) return 'after';
  if (type.startsWith('xstate.done.state.')) return 'done.state';
  if (type.startsWith('xstate.done.actor.')) return 'done.actor';
  if (type.startsWith('xstate.error.actor.')) return 'error.actor';
  if (type.startsWith('xstate.snapshot.')) return 'snapshot';
  if (type === 'xstate.init') return 'init';
  if (type === 'xstate.stop') return 'stop';
  if (type === 'xstate.route') return 'route';
  return 'outside';
}

/**
 * Whether someone outside the run can send an event of this type and have it taken: not one of the
 * events XState makes for the machine itself (delays, done, error and snapshot events), and not a
 * wildcard. What explain lists as `accepts` and a refusal offers.
 */
export function isOutsideEvent(type: string): boolean {
  const origin = eventOrigin(type);
  return origin === 'outside' || origin === 'route';
}

/**
 * What a person reads for an event of `type` in `machine`: "after 20 s", "after managerTimeout
 * (20 s)", "when checks finishes", "when both regions of checks finish", "when fetchUser is done",
 * "when fetchUser fails", "when fetchUser reports progress", "any other event"; an outside event's
 * own type unchanged. An XState event the machine does not define (a state since renamed), or one
 * of a machine not at hand (`undefined`: a run of a lifecycle no longer registered), is still put
 * in words, from its type alone.
 */
export function eventWords(machine: AnyStateMachine | undefined, type: string): string {
  const origin = eventOrigin(type);
  if (origin === 'outside') return type;
  const index = machineIndex(machine);
  switch (origin) {
    case 'after':
      return afterWords(machine, index.afters.get(type) ?? parsedAfter(type));
    case 'done.state': {
      const id = type.slice('xstate.done.state.'.length);
      const node = index.nodes.get(id);
      return node ? stateDoneWords(node) : `when ${shownId(machine, id)} finishes`;
    }
    case 'done.actor':
      return `when ${actorName(machine, index, type.slice('xstate.done.actor.'.length))} is done`;
    case 'error.actor':
      return `when ${actorName(machine, index, type.slice('xstate.error.actor.'.length))} fails`;
    case 'snapshot':
      return `when ${actorName(machine, index, type.slice('xstate.snapshot.'.length))} reports progress`;
    case 'wildcard':
      return wildcardWords(type);
    case 'init':
      return 'the start';
    case 'stop':
      return 'the stop';
    case 'route':
      return 'a move to a state by its id';
  }
}

/**
 * A child actor of a run as the machine's author knows it (the name eventWords gives it): an
 * invoke's own id, else its actor's name in `setup({ actors })`, else "the actor <state> invokes";
 * a spawned child by the id it was spawned with.
 */
export function actorWords(machine: AnyStateMachine | undefined, id: string): string {
  return actorName(machine, machineIndex(machine), id);
}

/** A delay of `ms` milliseconds as a person reads it, exactly: "500 ms", "20 s", "1.5 min", "2 h", "30 days". */
export function delayWords(ms: number): string {
  for (const [size, unit] of UNITS) {
    const tenths = (ms / size) * 10;
    // The largest unit that shows the delay exactly with at most one decimal.
    if (tenths >= 10 && Math.abs(tenths - Math.round(tenths)) < 1e-9) {
      const shown = Math.round(tenths) / 10;
      return unit === 'days' && shown === 1 ? '1 day' : `${shown} ${unit}`;
    }
  }
  return `${ms} ms`;
}

const UNITS: ReadonlyArray<readonly [number, string]> = [
  [86_400_000, 'days'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1000, 's'],
];

interface AfterDelay {
  /** A number of ms, or the name of a delay in `setup({ delays })`. */
  readonly delay: number | string;
}

interface InvokeEntry {
  readonly node: AnyStateNode;
  /** The id the machine gave the invoke; absent when XState made one ("0.machine.state"). */
  readonly id?: string;
  /** The actor's name in `setup({ actors })`; absent for inline logic. */
  readonly src?: string;
}

interface MachineIndex {
  readonly nodes: ReadonlyMap<string, AnyStateNode>;
  readonly afters: ReadonlyMap<string, AfterDelay>;
  readonly invokes: ReadonlyMap<string, InvokeEntry>;
}

const indexes = new WeakMap<AnyStateMachine, MachineIndex>();
const NO_MACHINE: MachineIndex = { nodes: new Map(), afters: new Map(), invokes: new Map() };

/** Every state node by id, every `after` event it arms and every invoke it starts: walked once per machine. */
function machineIndex(machine: AnyStateMachine | undefined): MachineIndex {
  if (!machine) return NO_MACHINE;
  const known = indexes.get(machine);
  if (known) return known;
  const nodes = new Map<string, AnyStateNode>();
  const afters = new Map<string, AfterDelay>();
  const invokes = new Map<string, InvokeEntry>();
  const visit = (node: AnyStateNode) => {
    nodes.set(node.id, node);
    const after = (node.config as { after?: Record<string, unknown> }).after;
    // XState's own naming (`getDelayedTransitions`): a numeric key is a number of ms.
    for (const key of Object.keys(after ?? {})) {
      const delay = Number.isNaN(+key) ? key : +key;
      afters.set(`xstate.after.${delay}.${node.id}`, { delay });
    }
    const configs = [(node.config as { invoke?: unknown }).invoke ?? []].flat() as Array<{ id?: unknown }>;
    node.invoke.forEach((invoke, i) => {
      const explicitId = typeof configs[i]?.id === 'string' ? (configs[i]!.id as string) : undefined;
      const src = typeof invoke.src === 'string' && !invoke.src.startsWith('xstate.') ? invoke.src : undefined;
      invokes.set(invoke.id, { node, ...(explicitId && { id: explicitId }), ...(src && { src }) });
    });
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(machine.root);
  const index = { nodes, afters, invokes };
  indexes.set(machine, index);
  return index;
}

/** "after 20 s", "after managerTimeout (20 s)" when the named delay is a number, else "after managerTimeout". */
function afterWords(machine: AnyStateMachine | undefined, { delay }: AfterDelay): string {
  if (typeof delay === 'number') return `after ${delayWords(delay)}`;
  const named = (machine?.implementations.delays as Record<string, unknown> | undefined)?.[delay];
  return typeof named === 'number' ? `after ${delay} (${delayWords(named)})` : `after ${delay}`;
}

/** An `after` event of a state the machine no longer has: `xstate.after.<delay>.<state id>`, read from its type. */
function parsedAfter(type: string): AfterDelay {
  const rest = type.slice('xstate.after.'.length);
  const numeric = /^(\d+(?:\.\d+)?)\./.exec(rest);
  if (numeric) return { delay: Number(numeric[1]) };
  return { delay: rest.split('.')[0]! };
}

/** "when checks finishes"; for a parallel state, "when both regions of checks finish" or "when every region of checks finishes". */
function stateDoneWords(node: AnyStateNode): string {
  const name = node.parent ? node.path.join('.') : node.machine.id;
  if (node.type !== 'parallel') return `when ${name} finishes`;
  const regions = (Object.values(node.states) as AnyStateNode[]).filter((n) => n.type !== 'history').length;
  if (regions === 2) return `when both regions of ${name} finish`;
  if (regions > 2) return `when every region of ${name} finishes`;
  return `when ${name} finishes`;
}

/**
 * The actor behind an actor event, as the machine's author knows it: the invoke's own id, else
 * the name of its logic in `setup({ actors })`, else "the actor <state> invokes" for inline logic.
 * An id no invoke has is a spawned child's, which its spawner named.
 */
function actorName(machine: AnyStateMachine | undefined, index: MachineIndex, id: string): string {
  const invoke = index.invokes.get(id);
  // XState's id for an invoke given none, "<index>.<state id>", of a state the machine does not have (any more).
  const generated = invoke ? undefined : /^\d+\.(.+)$/.exec(id);
  if (generated) return `the actor ${shownId(machine, generated[1]!)} invokes`;
  if (!invoke) return shownId(machine, id);
  if (invoke.id) return invoke.id;
  if (invoke.src) return invoke.src;
  return `the actor ${invoke.node.parent ? invoke.node.path.join('.') : invoke.node.machine.id} invokes`;
}

/** A state id ("expense.checks") without the machine's own id in front, as tables name states. */
function shownId(machine: AnyStateMachine | undefined, id: string): string {
  return machine && id.startsWith(`${machine.id}.`) ? id.slice(machine.id.length + 1) : id;
}

/** `*` is "any other event"; `order.*` is "any other order.… event"; XState's own wildcards in words. */
function wildcardWords(type: string): string {
  if (type === '*') return 'any other event';
  const prefix = type.slice(0, -2);
  if (prefix === 'xstate.done.actor') return 'when any actor is done';
  if (prefix === 'xstate.error.actor' || prefix === 'xstate.error') return 'when any actor fails';
  if (prefix === 'xstate.snapshot') return 'when any actor reports progress';
  if (prefix === 'xstate.after') return 'after any delay';
  if (prefix === 'xstate.done.state' || prefix === 'xstate.done') return 'when any state finishes';
  if (prefix.startsWith('xstate')) return 'any event XState makes';
  return `any other ${prefix} event`;
}
