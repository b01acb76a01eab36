import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { checkRegistry } from '../../src/cli/commands/check.js';
import {
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  sendParent,
  setup,
  spawnChild,
  type AnyStateMachine,
} from 'xstate';
import { checkMachine, configurationGraph, statechart } from '../../src/graph/index.js';
import { activeStateNodes } from '../../src/graph/xstate-internals.js';
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

/** The configuration every snapshot of `machine` rests in along `events`, as the configuration graph names them. */
function configurationsAlong(machine: AnyStateMachine, events: readonly string[]): string[] {
  const actor = createActor(machine).start();
  const name = () =>
    activeStateNodes(actor.getSnapshot())
      .filter((n) => n.type === 'atomic' || n.type === 'final')
      .sort((a, b) => a.order - b.order)
      .map((n) => n.path.join('.'))
      .join('|');
  const names = [name()];
  for (const type of events) {
    actor.send({ type });
    names.push(name());
  }
  actor.stop();
  return names;
}

const restingNames = (machine: AnyStateMachine) =>
  new Set([...configurationGraph(statechart(machine)).resting.values()].map((c) => c.name));

/** The correctness findings (the ones that fail the check) of a machine. */
const errors = (machine: AnyStateMachine, options?: Parameters<typeof checkMachine>[1]) =>
  brief(checkMachine(machine, options).filter((v) => v.severity === 'error'));

const waits = { waitsFor: 'a test' };

describe('statewright check over configurations', () => {
  it("passes the issue's expense: a parallel state whose two regions each reach final, then its onDone", () => {
    const expense = createMachine({
      meta: waits,
      initial: 'draft',
      states: {
        draft: { on: { SUBMIT: 'checks' } },
        checks: {
          type: 'parallel',
          onDone: 'done',
          states: {
            budget: { initial: 'checking', states: { checking: { on: { OK: 'ok' } }, ok: { type: 'final' } } },
            policy: { initial: 'checking', states: { checking: { on: { FINE: 'ok' } }, ok: { type: 'final' } } },
          },
        },
        done: { type: 'final' },
      },
    });
    expect(checkMachine(expense)).toEqual([]);
    const resting = restingNames(expense);
    for (const path of [
      ['SUBMIT', 'OK', 'FINE'],
      ['SUBMIT', 'FINE', 'OK'],
    ])
      for (const name of configurationsAlong(expense, path)) expect(resting).toContain(name);
    // Both regions final is never a resting configuration: onDone leaves it at once.
    expect(resting).not.toContain('checks.budget.ok|checks.policy.ok');
  });

  it('takes a state left at once by an unguarded always as transient: reached, never resting, never no-way-out', () => {
    const machine = createMachine({
      meta: waits,
      initial: 'a',
      states: {
        a: { on: { GO: 'routing' } },
        routing: { always: 'b' },
        b: { on: { END: 'done' } },
        done: { type: 'final' },
      },
    });
    expect(checkMachine(machine)).toEqual([]);
    expect(restingNames(machine)).toEqual(new Set(['a', 'b', 'done']));
    expect(configurationGraph(statechart(machine)).pathTo('routing')).toBe('a -GO-> routing');
  });

  it('follows a guarded always both ways, and a compound state to its final child and onDone', () => {
    const machine = setup({ guards: { ready: () => false } }).createMachine({
      meta: waits,
      initial: 'work',
      states: {
        work: {
          initial: 'deciding',
          onDone: 'done',
          states: {
            deciding: { always: { guard: 'ready', target: 'finished' }, on: { WAIT: 'waiting' } },
            waiting: { on: { GO: 'finished' } },
            finished: { type: 'final' },
          },
        },
        done: { type: 'final' },
      },
    });
    expect(checkMachine(machine)).toEqual([]);
    for (const name of configurationsAlong(machine, ['WAIT', 'GO'])) expect(restingNames(machine)).toContain(name);
    expect(restingNames(machine)).toEqual(new Set(['work.deciding', 'work.waiting', 'done']));
  });

  it('follows after (in ms and by name), an invoked actor done or failed, and its snapshots', () => {
    const machine = setup({
      actors: { fetchUser: fromPromise(async () => 1), counter: fromCallback(() => {}) },
      delays: { patience: 1000 },
    }).createMachine({
      meta: waits,
      initial: 'idle',
      states: {
        idle: { after: { 500: 'loading' } },
        loading: {
          invoke: { src: 'fetchUser', onDone: 'loaded', onError: 'failed' },
        },
        loaded: { after: { patience: 'watching' } },
        watching: { invoke: { src: 'counter', id: 'count', onSnapshot: 'seen' } },
        seen: { on: { END: 'done' } },
        failed: { type: 'final' },
        done: { type: 'final' },
      },
    });
    expect(errors(machine)).toEqual([]);
    const kinds = statechart(machine).transitions.map((t) => t.trigger);
    expect(kinds).toEqual(
      expect.arrayContaining([
        { kind: 'after', delay: 500 },
        { kind: 'after', delay: 'patience' },
        { kind: 'actor-done', actor: expect.any(String) },
        { kind: 'actor-error', actor: expect.any(String) },
        { kind: 'actor-snapshot', actor: 'count' },
      ]),
    );
  });

  it('follows root-level handlers, a wildcard, and targets in two regions at once', () => {
    const machine = createMachine({
      meta: waits,
      initial: 'a',
      on: { RESET: '.a', JUMP: { target: ['.both.left.second', '.both.right.second'] } },
      states: {
        a: { on: { '*': 'b' } },
        b: {},
        both: {
          type: 'parallel',
          states: {
            left: { initial: 'first', states: { first: {}, second: { type: 'final' } } },
            right: { initial: 'first', states: { first: {}, second: { type: 'final' } } },
          },
        },
      },
    });
    // '*' on 'a' takes RESET before the root does (the innermost state first), so RESET goes round a -> b -> a.
    expect(errors(machine)).toEqual([
      { rule: 'unreachable', state: 'both.left.first', path: '' },
      { rule: 'unreachable', state: 'both.right.first', path: '' },
    ]);
    for (const name of configurationsAlong(machine, ['ANY', 'JUMP', 'RESET']))
      expect(restingNames(machine)).toContain(name);
    expect(restingNames(machine)).toContain('both.left.second|both.right.second');
  });

  it('restores what deep and shallow history recorded', () => {
    const machine = createMachine({
      meta: waits,
      initial: 'work',
      states: {
        work: {
          initial: 'one',
          on: { PAUSE: 'paused', HOLD: 'held' },
          states: {
            one: { on: { NEXT: 'two' } },
            two: { initial: 'x', states: { x: { on: { NEXT: 'y' } }, y: {} } },
            deep: { type: 'history', history: 'deep' },
            shallow: { type: 'history' },
          },
        },
        paused: { on: { RESUME: 'work.deep' } },
        held: { on: { RESUME: 'work.shallow' } },
      },
    });
    expect(errors(machine)).toEqual([]);
    const graph = configurationGraph(statechart(machine));
    const resumes = graph.steps
      .filter((s) => s.trigger.kind === 'event' && s.trigger.type === 'RESUME')
      .map((s) => `${graph.resting.get(s.from)!.name} -> ${graph.resting.get(s.to)!.name}`);
    // Deep history restores work.two.y; shallow restores work.two, entered at its initial x.
    expect(resumes).toContain('paused -> work.two.y');
    expect(resumes).toContain('held -> work.two.x');
    expect(resumes).not.toContain('held -> work.two.y');
    for (const name of configurationsAlong(machine, ['NEXT', 'NEXT', 'PAUSE', 'RESUME', 'HOLD', 'RESUME']))
      expect(restingNames(machine)).toContain(name);
  });

  it('reports an unreachable state without hiding what the other rules find on the rest', () => {
    const machine = createMachine({
      meta: waits,
      initial: 'a',
      states: {
        a: { on: { GO: 'stuck', END: 'done' } },
        orphan: { on: { GO: 'stuck' } },
        stuck: { on: { POKE: { actions: () => {} } } },
        done: { type: 'final' },
      },
    });
    expect(brief(checkMachine(machine))).toEqual([
      { rule: 'unreachable', state: 'orphan', path: '' },
      { rule: 'no-way-out', state: 'stuck', path: 'a -GO-> stuck' },
    ]);
  });

  it('does not count a root after as a cycle, but counts an after its cycle enters again', () => {
    const rootAfter = createMachine({
      meta: waits,
      initial: 'a',
      after: { 60000: '.expired' },
      states: {
        a: { on: { NEXT: 'b' } },
        b: { on: { END: 'done' } },
        expired: { type: 'final' },
        done: { type: 'final' },
      },
    });
    expect(checkMachine(rootAfter)).toEqual([]);
    const rearmed = createMachine({
      meta: waits,
      initial: 'a',
      states: { a: { after: { 1000: 'b' } }, b: { on: { BACK: 'a', END: 'done' } }, done: { type: 'final' } },
    });
    expect(brief(checkMachine(rearmed))).toEqual([
      { rule: 'unbounded-cycle', state: 'a', path: 'a -after 1 s-> b -BACK-> a' },
    ]);
  });

  it('warns for the lint rules and fails for them only when the lifecycle is strict', () => {
    const article = createMachine({
      initial: 'draft',
      states: {
        draft: { on: { SUBMIT: 'review' } },
        review: { on: { PUBLISH: 'published', REJECT: 'draft' } },
        published: { type: 'final' },
      },
    });
    const lenient = checkMachine(article, { name: 'article' });
    expect(lenient.map((v) => [v.rule, v.severity])).toEqual([
      ['waits-without-deadline', 'warning'],
      ['waits-without-deadline', 'warning'],
      ['unbounded-cycle', 'warning'],
    ]);
    expect(lenient.every((v) => v.machine === 'article')).toBe(true);
    expect(checkMachine(article, { name: 'article', strict: true }).map((v) => v.severity)).toEqual([
      'error',
      'error',
      'error',
    ]);
    expect(checkMachine(noWayOutMachine)[0]!.severity).toBe('error');
  });
});

describe('statewright check on a machine with too many configurations', () => {
  it('says it could not decide, as a warning, rather than a false verdict', () => {
    // 13 independent regions of two states: 8192 configurations, over the bound.
    const states: Record<string, object> = {};
    for (let i = 0; i < 13; i++)
      states[`r${i}`] = { initial: 'a', states: { a: { on: { [`T${i}`]: 'b' } }, b: { on: { [`T${i}`]: 'a' } } } };
    const machine = createMachine({ meta: { ...waits, unbounded: 'toggles' }, type: 'parallel', states });
    expect(configurationGraph(statechart(machine)).complete).toBe(false);
    expect(checkMachine(machine)).toEqual([
      expect.objectContaining({
        rule: 'unreachable',
        severity: 'warning',
        state: '',
        message: expect.stringContaining('more than 5000 configurations'),
      }),
    ]);
    // Thousands of configurations explored: slow on a busy machine, so given room.
  }, 120_000);

  it('says so too when one step has more ways to choose among guards than it tries', () => {
    // Nine regions whose guarded GO each may pass or fail: 512 ways for one GO, over the 256 tried.
    const states: Record<string, object> = {};
    for (let i = 0; i < 9; i++)
      states[`r${i}`] = { initial: 'a', states: { a: { on: { GO: { guard: `g${i}`, target: '#many.done' } } } } };
    const machine = createMachine({
      id: 'many',
      meta: waits,
      initial: 'work',
      states: { work: { type: 'parallel', states }, done: { type: 'final' } },
    });
    expect(configurationGraph(statechart(machine)).complete).toBe(false);
    expect(checkMachine(machine).map((v) => [v.rule, v.severity, v.state])).toEqual([['unreachable', 'warning', '']]);
  });
});

describe('waits-without-deadline and what moves a state besides outside events', () => {
  it('takes an event a child sends (sendParent), even from another region, or a child spawned on entry, as no outside wait', () => {
    const child = createMachine({ initial: 'a', states: { a: { entry: sendParent({ type: 'READY' }) } } });
    const machine = setup({ actors: { child } }).createMachine({
      initial: 'both',
      states: {
        both: {
          type: 'parallel',
          states: {
            worker: { initial: 'running', states: { running: { invoke: { src: 'child' } } } },
            gate: { initial: 'waiting', states: { waiting: { on: { READY: 'open' } }, open: { type: 'final' } } },
          },
          on: { STOP: 'spawning' },
        },
        spawning: { entry: spawnChild('child'), on: { READY: 'done' } },
        done: { type: 'final' },
      },
    });
    expect(checkMachine(machine).filter((v) => v.rule === 'waits-without-deadline')).toEqual([]);
  });
});
