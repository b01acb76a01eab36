import type { AnyStateMachine } from 'xstate';
import { InvalidTransitionError } from './invalid-transition-error.js';
import { finalStateNames, leafStates, stateName, transitionTable, validEventsByState } from './transition-table.js';

/**
 * The helpers every lifecycle gets, derived from its machine once, at first use (not at load: a
 * command that never asks pays nothing for them): its states, its one-step graph, and questions
 * about both, answered by plain lookups. Each lifecycle exports one
 * such object under its own name (`execution`, `session`, `codon`, `codonRun`, `reviewLoop`,
 * `task`), typed with its states `S`, event types `E` and final states `T`.
 */
export interface LifecycleHelpers<S extends string, E extends string, T extends S> {
  /** Every state (the machine's leaves, as transition tables name them), in definition order. */
  readonly states: readonly S[];
  /** The final states, in definition order. */
  readonly terminalStates: readonly T[];
  /** The states that are not final, in definition order. */
  readonly activeStates: readonly Exclude<S, T>[];
  /** The one-step graph: for each state, the other states one event can move it to (`[]` for terminal states). */
  readonly transitions: Readonly<Record<S, readonly S[]>>;
  /** Whether `value` names a state of the machine. */
  isState(value: unknown): value is S;
  isTerminal(state: S): state is T;
  /** The events `state` has a transition for, in definition order; `[]` for terminal states. */
  validEvents(state: S): readonly E[];
  /** Whether `state` has a transition for `event`. A guarded one may still refuse the event's payload. Never throws. */
  canTransition(state: S, event: E): boolean;
  /** Whether one event can move `from` to `to` (a transition back to `from` itself is not a move). Never throws. */
  canMove(from: S, to: S): boolean;
}

/**
 * A deterministic machine's helpers plus its next-state function: the one-step table as plain
 * lookups, for callers that only need "which state follows" on a hot path. XState's own
 * `transition()` resolves a full snapshot (about 17 µs); a lookup is a few nanoseconds.
 */
export interface CompiledLifecycle<S extends string, E extends string, T extends S> extends LifecycleHelpers<S, E, T> {
  /** The next state, or throws `InvalidTransitionError`. */
  transition(state: S, event: E): S;
  /** The next state, or `undefined` when the event is not accepted. Never throws. */
  next(state: S, event: E): S | undefined;
}

/** Null-prototype records: a state or event named like an Object.prototype member is never found by accident. */
const record = <V>(): Record<string, V> => Object.create(null);

export function lifecycleHelpers<S extends string, E extends string, T extends S>(
  machine: AnyStateMachine,
): LifecycleHelpers<S, E, T> {
  let built: LifecycleHelpers<S, E, T> | undefined;
  const helpers = () => (built ??= buildHelpers<S, E, T>(machine));
  return {
    get states() {
      return helpers().states;
    },
    get terminalStates() {
      return helpers().terminalStates;
    },
    get activeStates() {
      return helpers().activeStates;
    },
    get transitions() {
      return helpers().transitions;
    },
    isState: (value): value is S => helpers().isState(value),
    isTerminal: (state): state is T => helpers().isTerminal(state),
    validEvents: (state) => helpers().validEvents(state),
    canTransition: (state, event) => helpers().canTransition(state, event),
    canMove: (from, to) => helpers().canMove(from, to),
  };
}

function buildHelpers<S extends string, E extends string, T extends S>(
  machine: AnyStateMachine,
): LifecycleHelpers<S, E, T> {
  const states = Object.freeze(leafStates(machine).map(stateName) as S[]);
  const terminalStates = Object.freeze(finalStateNames(machine) as T[]);
  const terminal = new Set<string>(terminalStates);
  const activeStates = Object.freeze(states.filter((s) => !terminal.has(s)) as Exclude<S, T>[]);

  const events = record<readonly E[]>();
  const accepted = record<Record<string, true>>();
  for (const [state, valid] of validEventsByState(machine)) {
    events[state] = Object.freeze(valid as E[]);
    accepted[state] = record();
    for (const event of valid) accepted[state]![event] = true;
  }
  const moves = record<S[]>();
  for (const state of states) moves[state] = [];
  for (const row of transitionTable(machine)) {
    const targets = moves[row.source]!;
    if (row.target !== row.source && !targets.includes(row.target as S)) targets.push(row.target as S);
  }
  for (const state of states) Object.freeze(moves[state]);
  const transitions = Object.freeze(moves) as Readonly<Record<S, readonly S[]>>;

  return {
    states,
    terminalStates,
    activeStates,
    transitions,
    isState: (value): value is S => typeof value === 'string' && accepted[value] !== undefined,
    isTerminal: (state): state is T => terminal.has(state),
    validEvents: (state) => events[state] ?? [],
    canTransition: (state, event) => accepted[state]?.[event] === true,
    canMove: (from, to) => moves[from]?.includes(to) ?? false,
  };
}

/** The helpers of a deterministic machine (no guards, no internal transitions), with its next-state lookup. */
export function compileTransitions<S extends string, E extends string, T extends S>(
  machine: AnyStateMachine,
): CompiledLifecycle<S, E, T> {
  // Compiled now: a machine that cannot be is refused where it is defined.
  return compiled<S, E, T>(machine, nextStateTable<S>(machine));
}

/**
 * `compileTransitions` for a machine known to compile (a built-in lifecycle, whose tests hold it
 * to that): its table made at first use, so loading the lifecycle costs nothing.
 */
export function compileTransitionsOnUse<S extends string, E extends string, T extends S>(
  machine: AnyStateMachine,
): CompiledLifecycle<S, E, T> {
  return compiled<S, E, T>(machine, undefined);
}

function compiled<S extends string, E extends string, T extends S>(
  machine: AnyStateMachine,
  table: Record<string, Record<string, S>> | undefined,
): CompiledLifecycle<S, E, T> {
  let built = table;
  const lookup = () => (built ??= nextStateTable<S>(machine));
  const next = (state: S, event: E): S | undefined => lookup()[state]?.[event];
  const helpers = lifecycleHelpers<S, E, T>(machine);
  return withHelpers(
    {
      transition(state: S, event: E): S {
        const table = lookup();
        const target = table[state]?.[event];
        if (target === undefined)
          throw new InvalidTransitionError(state, event, undefined, table[state] && Object.keys(table[state]));
        return target;
      },
      next,
      canTransition: (state: S, event: E) => next(state, event) !== undefined,
    },
    helpers,
  );
}

/**
 * `own` with every helper of `helpers` it does not define itself, the getters kept as getters: a
 * spread (`{ ...helpers }`) would read them all, deriving the helpers at load after all.
 */
export function withHelpers<S extends string, E extends string, T extends S, Own extends object>(
  own: Own,
  helpers: LifecycleHelpers<S, E, T>,
): LifecycleHelpers<S, E, T> & Own {
  const descriptors = Object.getOwnPropertyDescriptors(helpers) as Record<string, PropertyDescriptor>;
  for (const name of Object.keys(own)) delete descriptors[name];
  return Object.defineProperties(own, descriptors) as LifecycleHelpers<S, E, T> & Own;
}

/** A deterministic machine's one-step table, state then event to the next state; throws for a machine it cannot be. */
function nextStateTable<S extends string>(machine: AnyStateMachine): Record<string, Record<string, S>> {
  const table = record<Record<string, S>>();
  for (const state of validEventsByState(machine).keys()) table[state] = record();
  for (const row of transitionTable(machine)) {
    if (row.guard || row.internal) {
      throw new Error(
        `Machine '${machine.id}' cannot be compiled to a lookup table: '${row.source}' on '${row.event}' is ${row.guard ? `guarded by '${row.guard}'` : 'an internal transition'}. Use XState's transition() for it.`,
      );
    }
    if (table[row.source]![row.event] !== undefined) {
      throw new Error(
        `Machine '${machine.id}' cannot be compiled to a lookup table: '${row.source}' on '${row.event}' has more than one target.`,
      );
    }
    table[row.source]![row.event] = row.target as S;
  }
  return table;
}
