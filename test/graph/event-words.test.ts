import { describe, expect, it } from 'vitest';
import {
  assign,
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  sendParent,
  setup,
  spawnChild,
  type AnyStateMachine,
} from 'xstate';
import { delayWords, eventOrigin, eventWords, isOutsideEvent } from '../../src/graph/index.js';

/** An expense: two checks in parallel, a manager with a named deadline, a payout invoked by name, a report by inline logic. */
const expense = setup({
  types: {} as { context: { paid: boolean } },
  actors: {
    payout: fromPromise(async () => 'paid'),
    friend: createMachine({
      id: 'friend',
      initial: 'idle',
      states: { idle: { on: { DONE: 'over' } }, over: { type: 'final' } },
    }),
  },
  delays: { managerTimeout: 20_000, later: ({ context }) => (context.paid ? 1 : 2) },
}).createMachine({
  id: 'expense',
  context: { paid: false },
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'checks' }, after: { 86400000: 'expired' } },
    checks: {
      type: 'parallel',
      states: {
        receipt: { initial: 'pending', states: { pending: { on: { RECEIPT_OK: 'ok' } }, ok: { type: 'final' } } },
        budget: { initial: 'pending', states: { pending: { on: { BUDGET_OK: 'ok' } }, ok: { type: 'final' } } },
      },
      onDone: 'managerApproval',
    },
    managerApproval: {
      on: { APPROVE: 'paying' },
      after: { managerTimeout: 'timedOut', later: 'timedOut', 1500: 'managerApproval' },
    },
    paying: { invoke: { src: 'payout', onDone: 'reporting', onError: 'failed' } },
    reporting: {
      invoke: { src: fromCallback(() => () => {}), onError: 'failed', onSnapshot: { actions: [] } },
      entry: spawnChild('friend', { id: 'friend-ada' }),
      on: { 'xstate.done.actor.friend-ada': 'paid', '*': 'reporting' },
    },
    wrapUp: { initial: 'one', states: { one: { on: { NEXT: 'two' } }, two: { type: 'final' } }, onDone: 'paid' },
    three: {
      type: 'parallel',
      states: { a: {}, b: {}, c: {} },
      onDone: 'paid',
    },
    fetching: { invoke: { id: 'fetchUser', src: 'payout', onDone: 'paid', onError: 'failed' } },
    expired: { type: 'final' },
    timedOut: { type: 'final' },
    failed: { type: 'final' },
    paid: { type: 'final' },
  },
});

/** Every event type the machine names in its transitions, its own and XState's. */
function transitionTypes(machine: AnyStateMachine): string[] {
  const types: string[] = [];
  const visit = (node: AnyStateMachine['root']) => {
    types.push(...node.transitions.keys());
    for (const child of Object.values(node.states)) visit(child as AnyStateMachine['root']);
  };
  visit(machine.root);
  return types;
}

describe('eventWords', () => {
  it('says a numeric after in the largest unit that shows it exactly', () => {
    expect(eventWords(expense, 'xstate.after.86400000.expense.draft')).toBe('after 1 day');
    expect(eventWords(expense, 'xstate.after.1500.expense.managerApproval')).toBe('after 1.5 s');
    expect(delayWords(20_000)).toBe('20 s');
    expect(delayWords(90_000)).toBe('1.5 min');
    expect(delayWords(100_000)).toBe('100 s');
    expect(delayWords(7_200_000)).toBe('2 h');
    expect(delayWords(30 * 86_400_000)).toBe('30 days');
    expect(delayWords(250)).toBe('250 ms');
    expect(delayWords(1234)).toBe('1234 ms');
    expect(delayWords(0)).toBe('0 ms');
  });

  it('names a named delay, with its length when the machine gives it as a number', () => {
    expect(eventWords(expense, 'xstate.after.managerTimeout.expense.managerApproval')).toBe(
      'after managerTimeout (20 s)',
    );
    expect(eventWords(expense, 'xstate.after.later.expense.managerApproval')).toBe('after later');
  });

  it("says when a state finishes, counting a parallel state's regions", () => {
    expect(eventWords(expense, 'xstate.done.state.expense.checks')).toBe('when both regions of checks finish');
    expect(eventWords(expense, 'xstate.done.state.expense.three')).toBe('when every region of three finishes');
    expect(eventWords(expense, 'xstate.done.state.expense.wrapUp')).toBe('when wrapUp finishes');
    expect(eventWords(expense, 'xstate.done.state.expense.checks.receipt')).toBe('when checks.receipt finishes');
  });

  it('names an invoked actor by its id, else by its name in setup, else by the state that invokes it', () => {
    expect(eventWords(expense, 'xstate.done.actor.fetchUser')).toBe('when fetchUser is done');
    expect(eventWords(expense, 'xstate.error.actor.fetchUser')).toBe('when fetchUser fails');
    expect(eventWords(expense, 'xstate.done.actor.0.expense.paying')).toBe('when payout is done');
    expect(eventWords(expense, 'xstate.error.actor.0.expense.reporting')).toBe(
      'when the actor reporting invokes fails',
    );
    expect(eventWords(expense, 'xstate.snapshot.0.expense.reporting')).toBe(
      'when the actor reporting invokes reports progress',
    );
  });

  it('names a spawned child by the id it was spawned with', () => {
    expect(eventWords(expense, 'xstate.done.actor.friend-ada')).toBe('when friend-ada is done');
  });

  it('puts wildcards, the start and the stop in words, and leaves an outside event as it is', () => {
    expect(eventWords(expense, '*')).toBe('any other event');
    expect(eventWords(expense, 'order.*')).toBe('any other order event');
    expect(eventWords(expense, 'xstate.done.actor.*')).toBe('when any actor is done');
    expect(eventWords(expense, 'xstate.init')).toBe('the start');
    expect(eventWords(expense, 'xstate.stop')).toBe('the stop');
    expect(eventWords(expense, 'APPROVE')).toBe('APPROVE');
    expect(eventWords(expense, 'agent.exited')).toBe('agent.exited');
  });

  it('reads an event of a state the machine no longer has from its type alone', () => {
    expect(eventWords(expense, 'xstate.after.5000.expense.gone')).toBe('after 5 s');
    expect(eventWords(expense, 'xstate.after.slow.expense.gone')).toBe('after slow');
    expect(eventWords(expense, 'xstate.done.state.expense.gone')).toBe('when gone finishes');
    expect(eventWords(expense, 'xstate.error.actor.someone')).toBe('when someone fails');
  });

  it('tells outside events from the ones XState makes', () => {
    expect(isOutsideEvent('APPROVE')).toBe(true);
    expect(isOutsideEvent('xstate.route')).toBe(true);
    for (const own of [
      'xstate.after.20000.x.y',
      'xstate.done.state.x.y',
      'xstate.done.actor.f',
      'xstate.error.actor.f',
      'xstate.snapshot.f',
      '*',
      'a.*',
    ])
      expect(isOutsideEvent(own), own).toBe(false);
    expect(eventOrigin('xstate.snapshot.f')).toBe('snapshot');
  });

  it('leaves no XState name in the words for any event the machine names', () => {
    const types = transitionTypes(expense);
    expect(types.filter((t) => t.startsWith('xstate.')).length).toBeGreaterThan(8);
    for (const type of types) expect(eventWords(expense, type), type).not.toMatch(/xstate\./);
  });

  it('leaves no XState name in the words for the events a running machine receives', async () => {
    // A parent that invokes, spawns, waits on a parallel state and a delay: every event XState makes, as it makes them.
    const child = createMachine({ id: 'kid', entry: sendParent({ type: 'HELLO' }), initial: 'on', states: { on: {} } });
    const machine = setup({
      actors: { kid: child, work: fromPromise(async () => 42) },
    }).createMachine({
      id: 'parent',
      initial: 'both',
      context: {},
      states: {
        both: {
          type: 'parallel',
          entry: [spawnChild('kid', { id: 'kid-1' }), assign({})],
          states: {
            left: { initial: 'a', states: { a: { after: { 1: 'b' } }, b: { type: 'final' } } },
            right: { initial: 'a', states: { a: { invoke: { src: 'work', onDone: 'b' } }, b: { type: 'final' } } },
          },
          onDone: 'over',
        },
        over: { type: 'final' },
      },
    });
    const received: string[] = [];
    const actor = createActor(machine, {
      inspect: (e) => {
        if (e.type === '@xstate.event' && e.actorRef === actor) received.push(e.event.type);
      },
    });
    const done = new Promise<void>((resolve) => actor.subscribe({ complete: () => resolve() }));
    actor.start();
    await done;
    expect(received).toEqual(
      expect.arrayContaining([
        'xstate.init',
        'HELLO',
        'xstate.after.1.parent.both.left.a',
        'xstate.done.actor.0.parent.both.right.a',
      ]),
    );
    const words = received.map((type) => eventWords(machine, type));
    expect(words).toEqual(expect.arrayContaining(['the start', 'HELLO', 'after 1 ms', 'when work is done']));
    for (const w of words) expect(w).not.toMatch(/xstate\./);
  });
});
