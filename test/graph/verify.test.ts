import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { lifecycles } from '../../machines/index.js';
import { compileTransitions, transitionTable, validEventsByState, verifyMachine } from '../../src/graph/index.js';

describe('verifyMachine', () => {
  it.each(Object.entries(lifecycles))('finds the registered %s machine sound', (_, { machine }) => {
    expect(verifyMachine(machine)).toMatchObject({ unreachable: [], deadEnds: [], finalWithExits: [], ok: true });
  });

  it('reports unreachable states, dead ends and final states with exits', () => {
    const broken = createMachine({
      id: 'broken',
      initial: 'a',
      states: {
        a: { on: { GO: 'b', LOOP: 'a' } },
        b: {},
        c: { on: { GO: 'a' } },
        d: { type: 'final', on: { BACK: 'a' } },
      },
    });
    expect(verifyMachine(broken)).toEqual({
      machine: 'broken',
      unreachable: ['c', 'd'],
      deadEnds: ['b'],
      finalWithExits: ['d'],
      ok: false,
    });
  });
});

describe('transitionTable', () => {
  const nested = createMachine({
    id: 'nested',
    initial: 'work',
    states: {
      work: {
        initial: 'edit',
        on: { ABORT: 'done' },
        states: {
          edit: { on: { SAVE: 'check' } },
          check: { on: { OK: '#nested.done', RETRY: 'edit', NOTE: { actions: 'note' }, BLOCKED: {} } },
        },
      },
      done: { type: 'final' },
    },
  });

  it('lists child transitions before inherited ones, names nested states by path, marks internal edges', () => {
    expect(transitionTable(nested)).toEqual([
      { source: 'work.edit', event: 'SAVE', target: 'work.check' },
      { source: 'work.edit', event: 'ABORT', target: 'done' },
      { source: 'work.check', event: 'OK', target: 'done' },
      { source: 'work.check', event: 'RETRY', target: 'work.edit' },
      { source: 'work.check', event: 'NOTE', target: 'work.check', internal: true },
      { source: 'work.check', event: 'ABORT', target: 'done' },
    ]);
    expect(validEventsByState(nested).get('done')).toEqual([]);
  });

  it('refuses to compile a machine whose next state is not a plain lookup', () => {
    expect(() => compileTransitions(nested)).toThrow(/'work.check' on 'NOTE' is an internal transition/);
    const guarded = createMachine({
      id: 'g',
      initial: 'a',
      states: { a: { on: { GO: { target: 'b', guard: 'ready' } } }, b: {} },
    });
    expect(() => compileTransitions(guarded)).toThrow(/guarded by 'ready'/);
  });

  it('expands a history target into every state it may restore: all leaves for deep, each child entered for shallow', () => {
    const paused = (history: 'deep' | 'shallow') =>
      createMachine({
        id: 'p',
        initial: 'work',
        states: {
          work: {
            initial: 'edit',
            on: { PAUSE: 'paused' },
            states: {
              back: { type: 'history', history },
              edit: { on: { CHECK: 'check' } },
              check: { initial: 'running', states: { running: { on: { OK: 'passed' } }, passed: {} } },
            },
          },
          paused: { on: { RESUME: 'work.back' } },
        },
      });
    const resumes = (history: 'deep' | 'shallow') =>
      transitionTable(paused(history))
        .filter((r) => r.event === 'RESUME')
        .map((r) => r.target);
    expect(resumes('deep')).toEqual(['work.edit', 'work.check.running', 'work.check.passed']);
    expect(resumes('shallow')).toEqual(['work.edit', 'work.check.running']);
  });
});

describe('verifyMachine over configurations', () => {
  it("finds the issue's draft -> checks (parallel) -> done sound, and a state an always leaves no dead end", () => {
    const expense = createMachine({
      initial: 'draft',
      states: {
        draft: { on: { SUBMIT: 'checks' } },
        checks: {
          type: 'parallel',
          onDone: 'routing',
          states: {
            budget: {
              initial: 'pending',
              states: { pending: { on: { OK: 'approved' } }, approved: { type: 'final' } },
            },
            legal: { initial: 'pending', states: { pending: { on: { OK: 'approved' } }, approved: { type: 'final' } } },
          },
        },
        routing: { always: 'done' },
        done: { type: 'final' },
      },
    });
    expect(verifyMachine(expense)).toMatchObject({ unreachable: [], deadEnds: [], finalWithExits: [], ok: true });
  });
});
