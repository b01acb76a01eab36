/** The statechart model (src/graph/statechart.ts): every state with its kind, every transition with its source, targets, guard and trigger. */
import { describe, expect, it } from 'vitest';
import { and, createMachine, fromCallback, fromPromise, not, or, sendParent, setup } from 'xstate';
import { statechart } from '../../src/graph/index.js';

const child = createMachine({ initial: 'a', states: { a: { entry: sendParent({ type: 'CHILD_READY' }) } } });

const machine = setup({
  actors: { fetchUser: fromPromise(async () => 1), child, ticker: fromCallback(() => {}) },
  guards: { isAdmin: () => true, hasBudget: (_, params: { max: number }) => params.max > 0 },
  delays: { patience: 1000 },
}).createMachine({
  id: 'shapes',
  initial: 'idle',
  on: { RESET: '.idle' },
  after: { 60000: '.expired' },
  states: {
    idle: {
      on: {
        LOAD: { target: 'loading', guard: and(['isAdmin', not({ type: 'hasBudget', params: { max: 3 } })]) },
        PICK: [
          { target: 'both', guard: or(['isAdmin', () => false]) },
          { target: 'idle', reenter: true },
        ],
        NOTE: { actions: () => {} },
        FORBID: {},
        '*': 'idle',
      },
    },
    loading: {
      invoke: [
        { src: 'fetchUser', id: 'user', onDone: 'routing', onError: 'expired' },
        { src: 'child', id: 'kid', onSnapshot: { actions: () => {} } },
      ],
      on: { CHILD_READY: 'routing' },
    },
    routing: { always: [{ guard: 'isAdmin', target: 'both' }, { target: 'idle' }], after: { patience: 'idle' } },
    both: {
      type: 'parallel',
      onDone: 'idle',
      on: { BACK: 'both.left.hist' },
      states: {
        left: {
          initial: 'l1',
          states: { l1: { on: { 'task.*': 'l2' } }, l2: { type: 'final' }, hist: { type: 'history', history: 'deep' } },
        },
        right: {
          initial: 'r1',
          states: { r1: { on: { SPLIT: { target: ['r2', '#shapes.both.left.l2'] } } }, r2: { type: 'final' } },
        },
      },
    },
    expired: { type: 'final' },
  },
});

describe('the statechart model', () => {
  const model = statechart(machine);
  const from = (source: string, eventType: string) =>
    model.transitionsFrom(source).filter((t) => t.eventType === eventType);

  it('gives every state its kind, parent, children and initial child', () => {
    expect([...model.states.values()].map((s) => [s.path, s.kind])).toEqual([
      ['', 'compound'],
      ['idle', 'atomic'],
      ['loading', 'atomic'],
      ['routing', 'atomic'],
      ['both', 'parallel'],
      ['both.left', 'compound'],
      ['both.left.l1', 'atomic'],
      ['both.left.l2', 'final'],
      ['both.left.hist', 'history'],
      ['both.right', 'compound'],
      ['both.right.r1', 'atomic'],
      ['both.right.r2', 'final'],
      ['expired', 'final'],
    ]);
    expect(model.states.get('both.left.hist')).toMatchObject({ history: 'deep', parent: 'both.left' });
    expect(model.states.get('both.left')).toMatchObject({
      initial: 'both.left.l1',
      children: ['both.left.l1', 'both.left.l2', 'both.left.hist'],
    });
    expect(model.states.get('loading')!.invokes).toEqual([
      { id: 'user', src: 'fetchUser' },
      { id: 'kid', src: 'child' },
    ]);
  });

  it('keeps each transition on the state that defines it, the root and a parallel state included', () => {
    expect(from('', 'RESET')).toMatchObject([
      { source: '', targets: ['idle'], trigger: { kind: 'event', type: 'RESET' } },
    ]);
    expect(from('', 'xstate.after.60000.shapes')).toMatchObject([
      { source: '', targets: ['expired'], trigger: { kind: 'after', delay: 60000 } },
    ]);
    expect(from('both', 'BACK')).toMatchObject([{ targets: ['both.left.hist'] }]);
    expect(from('both', 'xstate.done.state.shapes.both')).toMatchObject([
      { targets: ['idle'], trigger: { kind: 'state-done', state: 'both' } },
    ]);
  });

  it('gives several targets, none, reenter, and a forbidden event', () => {
    expect(from('both.right.r1', 'SPLIT')[0]!.targets).toEqual(['both.right.r2', 'both.left.l2']);
    expect(from('idle', 'NOTE')).toMatchObject([{ targets: [], forbidden: false }]);
    expect(from('idle', 'FORBID')).toMatchObject([{ targets: [], forbidden: true }]);
    expect(from('idle', 'PICK').map((t) => [t.branch, t.reenter])).toEqual([
      [0, false],
      [1, true],
    ]);
  });

  it('reads guards with their names, params and and/or/not parts', () => {
    expect(from('idle', 'LOAD')[0]!.guard).toMatchObject({
      kind: 'and',
      name: 'isAdmin & !hasBudget',
      parts: [
        { kind: 'named', name: 'isAdmin' },
        { kind: 'not', parts: [{ kind: 'named', name: 'hasBudget', params: { max: 3 } }] },
      ],
    });
    expect(from('idle', 'PICK')[0]!.guard).toMatchObject({
      kind: 'or',
      parts: [{ kind: 'named' }, { kind: 'inline' }],
    });
    expect(from('idle', 'PICK')[1]!.guard).toBeUndefined();
  });

  it('names every trigger: outside events, wildcards, always, after by name, actors done, failed, their snapshots and what a child sends', () => {
    expect(from('idle', '*')[0]!.trigger).toEqual({ kind: 'wildcard', pattern: '*' });
    expect(from('both.left.l1', 'task.*')[0]!.trigger).toEqual({ kind: 'wildcard', pattern: 'task.*' });
    expect(model.transitionsFrom('routing').map((t) => t.trigger)).toEqual([
      { kind: 'after', delay: 'patience' },
      { kind: 'always' },
      { kind: 'always' },
    ]);
    expect(model.transitionsFrom('loading').map((t) => t.trigger)).toEqual([
      { kind: 'event', type: 'CHILD_READY', sentBy: ['kid'] },
      { kind: 'actor-done', actor: 'user' },
      { kind: 'actor-error', actor: 'user' },
      { kind: 'actor-snapshot', actor: 'kid' },
    ]);
  });

  it("labels each transition in words, XState's own event names left out", () => {
    expect(model.transitionsFrom('loading').map((t) => t.label)).toEqual([
      'CHILD_READY',
      'when user is done',
      'when user fails',
      'when kid reports progress',
    ]);
    expect(from('', 'xstate.after.60000.shapes')[0]!.label).toBe('after 1 min');
    expect(model.transitionsFrom('routing').map((t) => t.label)).toEqual(['after patience (1 s)', 'always', 'always']);
    expect(from('both', 'xstate.done.state.shapes.both')[0]!.label).toBe('when both regions of both finish');
    expect(model.transitions.every((t) => !t.label.includes('xstate.'))).toBe(true);
  });
});
