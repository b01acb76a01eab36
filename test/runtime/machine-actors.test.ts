/**
 * A machine's actors are provided once per machine, not per run (`provide` rebuilds the whole
 * state-node tree): each actor still runs the logic its factory built for its own run, and its
 * snapshot is persisted and restored through that logic.
 */
import { describe, expect, it } from 'vitest';
import { fromTransition, sendTo, setup, type AnyActorLogic } from 'xstate';
import type { Lifecycle } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { logicWithActors } from '../../src/runtime/machine-actors.js';
import type { RunHandle } from '../../src/actor-contract/run-handle.js';
import { memoryStore } from '../../src/stores/index.js';

/** Counts `ADD`s in a child actor; the child's state is all there is to see. */
const tally = setup({
  types: { events: {} as { type: 'ADD' } },
  actors: {
    counter: fromTransition((state: { count: number; runId: string }) => state, {
      count: 0,
      runId: 'none',
    }) as AnyActorLogic,
  },
}).createMachine({
  id: 'tally',
  invoke: { id: 'counter', src: 'counter' },
  on: { ADD: { actions: sendTo('counter', { type: 'ADD' }) } },
});
const lifecycle: Lifecycle = { machine: tally, version: 1, summary: 'counts in a child actor' };

/** The counter as each run builds it: it names its run, so a run given another's logic shows. */
const counter = (run: RunHandle) =>
  fromTransition(
    (state: { count: number; runId: string }, event: { type: string }) =>
      event.type === 'ADD' ? { ...state, count: state.count + 1 } : state,
    { count: 0, runId: run.runId },
  );

const counted = async (store: ReturnType<typeof memoryStore>, runId: string) => {
  const stored = (await store.load(runId))!.snapshot as { children: { counter: { snapshot: { context: unknown } } } };
  return stored.children.counter.snapshot.context;
};

describe('actors provided once per machine', () => {
  it('gives every run the logic built for it, persists it, and restores it in another runtime', async () => {
    const store = memoryStore();
    const first = await createRuntime({ store, machines: { tally: lifecycle }, actors: { tally: { counter } } });
    await Promise.all([first.start('tally', { id: 'a' }), first.start('tally', { id: 'b' })]);
    await first.dispatch('a', { type: 'ADD' });
    await first.dispatch('b', { type: 'ADD' });
    await first.dispatch('a', { type: 'ADD' });
    expect(await counted(store, 'a')).toEqual({ count: 2, runId: 'a' });
    expect(await counted(store, 'b')).toEqual({ count: 1, runId: 'b' });
    await first.close();

    const second = await createRuntime({ store, machines: { tally: lifecycle }, actors: { tally: { counter } } });
    await second.dispatch('b', { type: 'ADD' });
    await second.dispatch('a', { type: 'ADD' });
    expect(await counted(store, 'a')).toEqual({ count: 3, runId: 'a' });
    expect(await counted(store, 'b')).toEqual({ count: 2, runId: 'b' });
    await second.close();
  });

  it('builds the provided machine once for a machine and its factories', () => {
    const factories = { counter };
    expect(logicWithActors(tally, factories)).toBe(logicWithActors(tally, factories));
    expect(logicWithActors(tally, factories)).not.toBe(tally);
    expect(logicWithActors(tally, {})).toBe(tally);
  });
});
