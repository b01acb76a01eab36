import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { checkRegistry } from '../../src/cli/commands/check.js';
import { setup } from 'xstate';
import { checkMachine } from '../../src/graph/index.js';
import {
  boundedCycleMachine,
  cycleMachine,
  declaredCycleMachine,
  handledMachine,
  noWayOutMachine,
  orBudgetCycleMachine,
  unreachableMachine,
  waitsMachine,
} from '../fixtures/broken-machines.js';

const brief = (violations: ReturnType<typeof checkMachine>) =>
  violations.map(({ rule, state, path }) => ({ rule, state, path }));

describe('statewright check', () => {
  it('passes every registered machine', () => {
    expect(checkRegistry(lifecycles)).toEqual([]);
  });

  it('finds a state nothing reaches', () => {
    const [violation, ...rest] = checkMachine(unreachableMachine);
    expect(rest).toEqual([]);
    expect(violation).toMatchObject({ machine: 'unreachable', rule: 'unreachable', state: 'orphan', path: '' });
    expect(violation!.message).toContain("'orphan' cannot be reached from the initial state");
  });

  it('finds a non-final state with no way out, with the path that gets there', () => {
    expect(brief(checkMachine(noWayOutMachine))).toEqual([
      { rule: 'no-way-out', state: 'stuck', path: 'a -GO-> stuck' },
    ]);
  });

  it('finds a state only an outside event moves that has no deadline and declares nobody it waits for', () => {
    const violations = checkMachine(waitsMachine);
    expect(brief(violations)).toEqual([{ rule: 'waits-without-deadline', state: 'idle', path: 'a -GO-> idle' }]);
    expect(violations[0]!.message).toContain('(DONE)');
  });

  it('accepts a waiting state that declares who it waits for, or a deadline an action arms', () => {
    const waiting = (meta: object) =>
      setup({}).createMachine({
        id: 'declared',
        initial: 'idle',
        states: { idle: { meta, on: { DONE: 'done' } }, done: { type: 'final' } },
      });
    expect(brief(checkMachine(waiting({})))).toEqual([{ rule: 'waits-without-deadline', state: 'idle', path: 'idle' }]);
    expect(checkMachine(waiting({ waitsFor: 'a person, to press DONE' }))).toEqual([]);
    expect(checkMachine(waiting({ deadline: 'timeout: spawned by the entry action, fires DONE' }))).toEqual([]);
    // A declaration needs its reason.
    expect(brief(checkMachine(waiting({ waitsFor: ' ' })))).toEqual([
      { rule: 'waits-without-deadline', state: 'idle', path: 'idle' },
    ]);
  });

  it('finds a cycle nothing bounds, naming it', () => {
    expect(brief(checkMachine(cycleMachine))).toEqual([
      { rule: 'unbounded-cycle', state: 'a', path: 'a -NEXT-> b -BACK-> a' },
    ]);
    expect(brief(checkMachine(orBudgetCycleMachine))).toEqual([
      { rule: 'unbounded-cycle', state: 'a', path: 'a -NEXT-> b -BACK-> a' },
    ]);
  });

  it('accepts a cycle bounded by a budget guard, or declared unbounded with a reason', () => {
    expect(checkMachine(boundedCycleMachine)).toEqual([]);
    expect(checkMachine(declaredCycleMachine)).toEqual([]);
  });

  it('finds an event the lifecycle defines that no reachable state handles', () => {
    expect(checkMachine(handledMachine, { events: ['GO'] })).toEqual([]);
    const violations = checkMachine(handledMachine, { events: ['GO', 'LOST'] });
    expect(brief(violations)).toEqual([{ rule: 'unhandled-event', state: '', path: '' }]);
    expect(violations[0]!.message).toContain("'LOST'");
  });
});
