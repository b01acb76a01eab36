import { describe, expect, it } from 'vitest';
import { createMachine, transition as xstateTransition, type AnyStateMachine } from 'xstate';
import { codon, codonRun, execution, lifecycles, reviewLoop, session, task } from '../../machines/index.js';
import {
  compileTransitions,
  finalStateNames,
  leafStates,
  lifecycleHelpers,
  stateName,
  transitionTable,
  type LifecycleHelpers,
} from '../../src/graph/index.js';

/** Any lifecycle's helpers, read as plain strings. */
type AnyHelpers = Omit<LifecycleHelpers<string, string, string>, 'activeStates'> & {
  readonly activeStates: readonly string[];
};

/** Every lifecycle's helpers beside the machine they are derived from. */
const helpersOf: Array<[string, AnyStateMachine, AnyHelpers]> = [
  ['execution', lifecycles.execution.machine, execution],
  ['session', lifecycles.session.machine, session],
  ['codon', lifecycles.codon.machine, codon],
  ['codon-run', lifecycles['codon-run'].machine, codonRun],
  ['review-loop', lifecycles['review-loop'].machine, reviewLoop],
  ['task', lifecycles.task.machine, task],
];

describe('the helpers every lifecycle has', () => {
  it('cover every lifecycle of the registry', () => {
    expect(helpersOf.map(([name]) => name).sort()).toEqual(Object.keys(lifecycles).sort());
  });

  describe.each(helpersOf)('%s', (_name, machine, helpers) => {
    const rows = transitionTable(machine);

    it("lists the machine's states, its final ones, and the others", () => {
      expect(helpers.states).toEqual(leafStates(machine).map(stateName));
      expect(helpers.terminalStates).toEqual(finalStateNames(machine));
      expect([...helpers.activeStates, ...helpers.terminalStates].sort()).toEqual([...helpers.states].sort());
      for (const state of helpers.states)
        expect(helpers.isTerminal(state), state).toBe(helpers.terminalStates.includes(state));
    });

    it('answers canTransition and validEvents from the transition table', () => {
      for (const state of helpers.states) {
        const events = [...new Set(rows.filter((r) => r.source === state).map((r) => r.event))];
        expect(helpers.validEvents(state), state).toEqual(events);
        for (const event of new Set(rows.map((r) => r.event)))
          expect(helpers.canTransition(state, event), `${state} ${event}`).toBe(events.includes(event));
      }
    });

    it('moves a state to the other states one event reaches, and no further', () => {
      for (const from of helpers.states) {
        const targets = new Set(rows.filter((r) => r.source === from && r.target !== from).map((r) => r.target));
        expect(new Set(helpers.transitions[from]), from).toEqual(targets);
        for (const to of helpers.states) expect(helpers.canMove(from, to), `${from} -> ${to}`).toBe(targets.has(to));
      }
    });

    it('knows its own state names and nothing else, prototype names included', () => {
      for (const state of helpers.states) expect(helpers.isState(state)).toBe(true);
      for (const other of ['nonsense', 'toString', '__proto__', 'constructor', 42, null, undefined]) {
        expect(helpers.isState(other), String(other)).toBe(false);
        expect(helpers.canMove(other as string, helpers.states[0]!)).toBe(false);
        expect(helpers.canTransition(other as string, 'toString')).toBe(false);
        expect(helpers.validEvents(other as string)).toEqual([]);
      }
      expect(helpers.canTransition(helpers.states[0]!, 'hasOwnProperty')).toBe(false);
    });

    it('is frozen: a caller cannot change what every caller reads', () => {
      expect(Object.isFrozen(helpers.states)).toBe(true);
      expect(Object.isFrozen(helpers.transitions)).toBe(true);
      for (const state of helpers.states) expect(Object.isFrozen(helpers.transitions[state])).toBe(true);
    });
  });
});

describe('compileTransitions', () => {
  const machine = createMachine({
    id: 'door',
    initial: 'closed',
    states: {
      closed: { on: { OPEN: 'open', LOCK: 'locked' } },
      open: { on: { CLOSE: 'closed' } },
      locked: { on: { UNLOCK: 'closed', BREAK: 'broken' } },
      broken: { type: 'final' },
    },
  });
  const door = compileTransitions<
    'closed' | 'open' | 'locked' | 'broken',
    'OPEN' | 'CLOSE' | 'LOCK' | 'UNLOCK' | 'BREAK',
    'broken'
  >(machine);

  it("gives the same helpers as a guarded machine gets, with XState's next state as a lookup", () => {
    const { transition, next, ...helpers } = door;
    const generic = lifecycleHelpers<string, string, string>(machine);
    for (const key of Object.keys(generic) as Array<keyof typeof generic>) {
      if (typeof generic[key] !== 'function') expect(helpers[key], key).toEqual(generic[key]);
    }
    for (const state of door.states) {
      for (const event of ['OPEN', 'CLOSE', 'LOCK', 'UNLOCK', 'BREAK'] as const) {
        const snapshot = machine.resolveState({ value: state });
        const xstate = snapshot.can({ type: event })
          ? (xstateTransition(machine, snapshot, { type: event })[0].value as string)
          : undefined;
        expect(next(state, event), `${state} ${event}`).toBe(xstate);
        expect(door.canTransition(state, event)).toBe(xstate !== undefined);
        expect(generic.canTransition(state, event)).toBe(xstate !== undefined);
        if (xstate !== undefined) expect(transition(state, event)).toBe(xstate);
      }
    }
    expect(transition('locked', 'BREAK')).toBe('broken');
    expect(() => transition('broken', 'OPEN')).toThrow(
      "Invalid transition: cannot apply event 'OPEN' in state 'broken'",
    );
  });
});
