/**
 * A machine that throws (in its context factory, an action or a guard) fails that one start or
 * event with `MachineError`, changes nothing, and leaves the process running: XState rethrows an
 * actor's error from a timer when nobody observes it, which would take the whole host down.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import type { Lifecycle } from '../../machines/index.js';
import {
  ActorFactoryError,
  MachineError,
  createRuntime,
  type LogEntry,
  type Runtime,
} from '../../src/runtime/index.js';
import { timedLifecycle } from '../fixtures/timed-machine.js';
import { memoryStore } from '../../src/stores/index.js';

const fragile = setup({
  types: {
    input: {} as { limit?: unknown },
    context: {} as { limit: number; count: number },
    events: {} as { type: 'ADD' } | { type: 'BOOM' } | { type: 'CHECK' },
  },
}).createMachine({
  id: 'fragile',
  initial: 'counting',
  context: ({ input }) => {
    if (typeof input?.limit !== 'number')
      throw new Error(`limit must be a number, got ${JSON.stringify(input?.limit)}.`);
    return { limit: input.limit, count: 0 };
  },
  states: {
    counting: {
      on: {
        ADD: { actions: assign({ count: ({ context }) => context.count + 1 }) },
        BOOM: {
          actions: () => {
            throw new Error('the action failed');
          },
        },
        CHECK: {
          guard: () => {
            throw new Error('the guard failed');
          },
          target: 'checked',
        },
      },
    },
    checked: {},
  },
});

const machines = {
  fragile: { machine: fragile, version: 1, summary: 'a machine that throws on demand' } satisfies Lifecycle,
};

/** Errors thrown from timers, which is how XState reports an error nobody observes. */
let uncaught: unknown[] = [];
const record = (error: unknown) => void uncaught.push(error);
beforeEach(() => {
  uncaught = [];
  process.on('uncaughtException', record);
});
afterEach(() => {
  process.off('uncaughtException', record);
});
/**
 * A later event than XState's `setTimeout(() => { throw err })`, set when the error happened: timers
 * fire in the order they expire, so once this one has fired, any such throw has happened.
 */
const timersRun = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('a machine that throws', () => {
  it('fails start with MachineError when its context factory throws, stores nothing and does not crash the process', async () => {
    const store = memoryStore();
    const rt = await createRuntime({ store, machines });
    const error = await rt.start('fragile', { id: 'bad', input: { limit: 'ten' } }).catch((e) => e);
    expect(error).toBeInstanceOf(MachineError);
    expect(error.message).toBe(`Run 'bad' could not start: limit must be a number, got "ten". Nothing was stored.`);
    expect(await store.load('bad')).toBeUndefined();
    expect(await rt.list()).toEqual([]);
    // The id is free again: a start with good input takes it.
    expect((await rt.start('fragile', { id: 'bad', input: { limit: 10 } })).state).toBe('counting');
    await timersRun();
    expect(uncaught).toEqual([]);
    await rt.close();
  });

  it.each([
    ['BOOM', 'the action failed'],
    ['CHECK', 'the guard failed'],
  ])('fails %s with MachineError, leaves the run as it was, and goes on taking events', async (type, cause) => {
    const rt: Runtime = await createRuntime({ store: memoryStore(), machines });
    const { runId } = await rt.start('fragile', { input: { limit: 3 } });
    await rt.dispatch(runId, { type: 'ADD' });
    const errors: Error[] = [];
    rt.onError(({ error }) => errors.push(error));
    const error = await rt.dispatch(runId, { type }).catch((e) => e);
    expect(error).toBeInstanceOf(MachineError);
    expect(error.message).toMatch(
      new RegExp(`^Run '${runId}' failed to apply '${type}': (.|\\n)*${cause}\\. The run is unchanged\\.$`),
    );
    // Fire-and-forget: the same refusal reaches the error channel.
    rt.send(runId, { type });
    await rt.flush();
    expect(errors.map((e) => e.message)).toEqual([error.message]);
    const after = await rt.getSnapshot(runId);
    expect([after.state, after.seq, after.context.count]).toEqual(['counting', 1, 1]);
    expect((await rt.history(runId)).map((e) => e.event.type)).toEqual(['ADD']);
    expect((await rt.dispatch(runId, { type: 'ADD' })).context.count).toBe(2);
    await timersRun();
    expect(uncaught).toEqual([]);
    await rt.close();
  });
});

describe('code given to the runtime that throws', () => {
  it('an actor factory: the start fails with ActorFactoryError naming the actor, and nothing is stored', async () => {
    const store = memoryStore();
    const rt = await createRuntime({
      store,
      machines: { timed: timedLifecycle },
      actors: {
        timed: {
          deadline: () => {
            throw new Error('no timer wheel');
          },
        },
      },
    });
    const error = await rt
      .start('timed', { id: 't-1', input: { timeoutMs: 100, createdAt: rt.clock.now() } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ActorFactoryError);
    expect(error.message).toBe(
      "Run 't-1': the 'deadline' actor could not be built: no timer wheel. Fix the 'deadline' factory given to createRuntime({ actors }); nothing was changed.",
    );
    expect(await store.load('t-1')).toBeUndefined();
    await rt.close();
  });

  it('an inspector: the committed start and events still succeed, and the failure is logged', async () => {
    const logs: LogEntry[] = [];
    const rt = await createRuntime({
      store: memoryStore(),
      machines,
      onLog: (entry) => logs.push(entry),
      inspect: () => {
        throw new Error('inspector is down');
      },
    });
    const { runId } = await rt.start('fragile', { input: { limit: 1 } });
    expect((await rt.dispatch(runId, { type: 'ADD' })).context.count).toBe(1);
    expect(logs.map((l) => [l.runId, l.level, l.message])).toContainEqual([
      runId,
      'error',
      'the inspector threw: inspector is down',
    ]);
    await timersRun();
    expect(uncaught).toEqual([]);
    await rt.close();
  });
});
