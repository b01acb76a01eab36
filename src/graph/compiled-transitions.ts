import type { AnyStateMachine } from 'xstate';
import { InvalidTransitionError } from './invalid-transition-error.js';
import { finalStateNames, transitionTable, validEventsByState } from './transition-table.js';

/**
 * A machine's one-step table compiled into plain lookups, for callers that only need "which state
 * follows" on a hot path. XState's own `transition()` resolves a full snapshot (about 17 µs); a
 * lookup is a few nanoseconds. Only deterministic machines compile: no guards, no internal edges.
 */
export interface CompiledTransitions<S extends string, E extends string> {
  /** The next state, or throws `InvalidTransitionError`. */
  transition(state: S, event: E): S;
  /** The next state, or `undefined` when the event is not accepted. Never throws. */
  next(state: S, event: E): S | undefined;
  canTransition(state: S, event: E): boolean;
  validEvents(state: S): readonly E[];
  isTerminal(state: S): boolean;
  readonly terminalStates: readonly S[];
  readonly states: readonly S[];
}

export function compileTransitions<S extends string, E extends string>(machine: AnyStateMachine): CompiledTransitions<S, E> {
  // Null-prototype records: an event named like an Object.prototype member is never "accepted".
  const table: Record<string, Record<string, S>> = Object.create(null);
  const events: Record<string, readonly E[]> = Object.create(null);
  for (const [state, valid] of validEventsByState(machine)) {
    table[state] = Object.create(null);
    events[state] = Object.freeze(valid as E[]);
  }
  for (const row of transitionTable(machine)) {
    if (row.guard || row.internal) {
      throw new Error(`Machine '${machine.id}' cannot be compiled to a lookup table: '${row.source}' on '${row.event}' is ${row.guard ? `guarded by '${row.guard}'` : 'an internal transition'}. Use XState's transition() for it.`);
    }
    if (table[row.source]![row.event] !== undefined) {
      throw new Error(`Machine '${machine.id}' cannot be compiled to a lookup table: '${row.source}' on '${row.event}' has more than one target.`);
    }
    table[row.source]![row.event] = row.target as S;
  }
  const terminalStates = Object.freeze(finalStateNames(machine) as S[]);
  const terminal = new Set<string>(terminalStates);
  const states = Object.freeze(Object.keys(table) as S[]);

  const next = (state: S, event: E): S | undefined => table[state]?.[event];
  return {
    transition(state, event) {
      const target = table[state]?.[event];
      if (target === undefined) throw new InvalidTransitionError(state, event);
      return target;
    },
    next,
    canTransition: (state, event) => next(state, event) !== undefined,
    validEvents: (state) => events[state] ?? [],
    isTerminal: (state) => terminal.has(state),
    terminalStates,
    states,
  };
}
