/**
 * `runtime.unload(runId)`: what a service closes with, and how a process refreshes a view another
 * process moved on from. The run's queue is applied first, its actors stop, the store keeps it, and
 * the next event hosts it again from the store.
 */
import { assign, fromCallback, setup, type EventObject } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { Lifecycle } from '../../machines/index.js';
import { createRuntime, type RunHandle } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';

const counter = setup({
  types: { context: {} as { count: number }, events: {} as { type: 'ADD' } },
  actors: { watcher: fromCallback<EventObject>(() => {}) },
}).createMachine({
  id: 'counter',
  initial: 'counting',
  context: { count: 0 },
  states: {
    counting: {
      invoke: { src: 'watcher' },
      on: { ADD: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
    },
  },
});
const machines = { counter: { machine: counter, version: 1, summary: 'counts' } satisfies Lifecycle };

/** A watcher actor per hosting that records its starts and stops, and keeps its run handle to speak later. */
function watchers() {
  const log: string[] = [];
  const handles: RunHandle[] = [];
  const watcher = (run: RunHandle) =>
    fromCallback(() => {
      handles.push(run);
      log.push('started');
      return () => log.push('stopped');
    });
  return { log, handles, watcher };
}

describe('unloading a run', () => {
  it('applies what is queued, stops its actors, keeps it in the store, and hosts it again on the next event', async () => {
    const store = memoryStore();
    const { log, watcher } = watchers();
    const rt = await createRuntime({ store, machines, actors: { counter: { watcher } } });
    await rt.start('counter', { id: 'c' });
    rt.send('c', { type: 'ADD' });
    rt.send('c', { type: 'ADD' });
    await rt.unload('c');
    expect(log).toEqual(['started', 'stopped']);
    expect(await store.load('c')).toMatchObject({ seq: 2, status: 'active' });
    expect((await rt.dispatch('c', { type: 'ADD' })).context.count).toBe(3);
    expect(log).toEqual(['started', 'stopped', 'started']);
    await rt.unload('never-hosted'); // nothing to do
    await rt.close();
  });

  it('takes no report from the actors it stopped', async () => {
    const store = memoryStore();
    const { handles, watcher } = watchers();
    const errors: string[] = [];
    const rt = await createRuntime({
      store,
      machines,
      actors: { counter: { watcher } },
      onError: ({ error }) => errors.push(error.message),
    });
    await rt.start('counter', { id: 'c' });
    await rt.unload('c');
    handles[0]!.send({ type: 'ADD' }); // a stopped actor speaking late
    await rt.dispatch('c', { type: 'ADD' }); // hosted again: this is the one applied
    await rt.flush();
    expect((await store.history('c')).map((e) => e.seq)).toEqual([1]);
    expect(errors).toEqual([]);
    await rt.close();
  });

  it('refreshes a view another runtime has moved on from, on a store without leases', async () => {
    // With leases another runtime cannot move on while this one holds the run (see leases.test.ts).
    const { leases: _leases, ...store } = memoryStore();
    const a = await createRuntime({ store, machines, owner: 'a' });
    const b = await createRuntime({ store, machines, owner: 'b', recover: false });
    await a.start('counter', { id: 'c' });
    await b.dispatch('c', { type: 'ADD' });
    expect((await a.getSnapshot('c')).seq).toBe(0); // a's hosted copy is behind the store
    await a.unload('c');
    expect(await a.getSnapshot('c')).toMatchObject({ seq: 1, context: { count: 1 } });
    expect((await a.dispatch('c', { type: 'ADD' })).context.count).toBe(2);
    await a.close();
    await b.close();
  });

  it('on a store with leases, lets another runtime take the run only once it is unloaded', async () => {
    const store = memoryStore();
    const a = await createRuntime({ store, machines, owner: 'a' });
    const b = await createRuntime({ store, machines, owner: 'b', recover: false });
    await a.start('counter', { id: 'c' });
    await expect(b.dispatch('c', { type: 'ADD' })).rejects.toMatchObject({
      name: 'RunHeldError',
      runId: 'c',
      lease: { holder: 'a', state: 'held' },
    });
    await a.unload('c');
    // Its watcher was ended: let run out, still held, so the next holder applies the recovery rule.
    expect(await store.load('c')).toMatchObject({ lease: { holder: 'a', state: 'held', epoch: 1 } });
    expect((await b.dispatch('c', { type: 'ADD' })).context.count).toBe(1);
    expect(await store.load('c')).toMatchObject({ lease: { holder: 'b', state: 'held', epoch: 2 } });
    await a.close();
    await b.close();
  });
});
