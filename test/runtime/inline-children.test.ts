/**
 * A child spawned from inline logic (`spawn(childMachine)` in an `assign` or in the context factory,
 * `spawnChild(childMachine)`) can be neither stored nor restored: XState persists its logic object,
 * which it cannot revive, and such a run was wedged after its first restore (every send failed with
 * `this.logic.getPersistedSnapshot is not a function`). The step or the start that spawns one is
 * refused with InlineChildError, which says how to fix it, before anything is stored; a run stored
 * with one already is set aside with that reason; and the same machine with the child named in
 * `setup({ actors })` and spawned by name runs on through a restart.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assign, createActor, createMachine, sendTo, setup, spawnChild, type AnyActorRef } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { checkMachine } from '../../src/graph/check-machine.js';
import { createRuntime, InlineChildError, ManualClock, UnknownRunError } from '../../src/runtime/index.js';
import { memoryStore, sqliteStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

/** A counter a parent spawns and bumps. */
const counter = setup({ types: { context: {} as { count: number }, events: {} as { type: 'BUMP' } } }).createMachine({
  id: 'counter',
  context: { count: 0 },
  on: { BUMP: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
});

/** Spawns the counter from inline logic in an assign (untyped: XState's types refuse inline logic beside named actors). */
const inlineSpawner = createMachine({
  id: 'inline-spawner',
  context: { child: null as AnyActorRef | null, notes: 0 },
  on: {
    ADD: {
      actions: assign({
        child: ({ spawn }) =>
          (spawn as (logic: unknown, options: { id: string }) => AnyActorRef)(counter, { id: 'c1' }),
      }),
    },
    NOTE: { actions: assign({ notes: ({ context }) => context.notes + 1 }) },
  },
});

/** Spawns the counter from inline logic in its context factory. */
const inlineAtStart = createMachine({
  id: 'inline-at-start',
  context: ({ spawn }) => ({
    child: (spawn as (logic: unknown, options: { id: string }) => AnyActorRef)(counter, { id: 'c0' }),
  }),
});

/** Spawns the counter from inline logic with spawnChild. */
const inlineSpawnChild = createMachine({
  id: 'inline-spawn-child',
  on: { ADD: { actions: spawnChild(counter, { id: 'c2' }) } },
});

/** The same as `inlineSpawner`, with the counter named in setup({ actors }) and spawned by name. */
const namedSpawner = setup({
  types: { context: {} as { child: AnyActorRef | null }, events: {} as { type: 'ADD' } | { type: 'BUMP' } },
  actors: { counter },
}).createMachine({
  id: 'named-spawner',
  context: { child: null },
  on: {
    ADD: { actions: assign({ child: ({ spawn }) => spawn('counter', { id: 'c1' }) }) },
    BUMP: { actions: sendTo(({ context }) => context.child!, { type: 'BUMP' }) },
  },
});

const lifecycle = (machine: Lifecycles[string]['machine']) => ({ machine, version: 1, summary: machine.id });
const machines: Lifecycles = {
  inlineSpawner: lifecycle(inlineSpawner),
  inlineAtStart: lifecycle(inlineAtStart),
  inlineSpawnChild: lifecycle(inlineSpawnChild),
  namedSpawner: lifecycle(namedSpawner),
};

describe('children from inline logic', () => {
  it('refuses the step that spawns one, saying how to fix it, and the run goes on unchanged', async () => {
    const runtime = await createRuntime({ store: memoryStore(), machines, clock: new ManualClock() });
    await runtime.start('inlineSpawner', { id: 'p-1' });
    const error = await runtime.dispatch('p-1', { type: 'ADD' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InlineChildError);
    expect(error).toMatchObject({ kind: 'setup', runId: 'p-1', eventType: 'ADD', children: ['c1'] });
    expect((error as Error).message).toContain("spawns child 'c1' from inline logic");
    expect((error as Error).message).toContain(
      'name its logic in setup({ actors: { name: logic } }) and spawn it by that name',
    );
    expect((await runtime.getSnapshot('p-1')).seq).toBe(0);
    expect(await runtime.history('p-1')).toEqual([]);
    // Not wedged: the next event applies.
    expect((await runtime.dispatch('p-1', { type: 'NOTE' })).context.notes).toBe(1);
    const spawnChildError = await runtime
      .start('inlineSpawnChild', { id: 'p-2' })
      .then(() => runtime.dispatch('p-2', { type: 'ADD' }).catch((e: unknown) => e));
    expect(spawnChildError).toMatchObject({ name: 'InlineChildError', children: ['c2'] });
    await runtime.close();
  });

  it('refuses a start whose context factory spawns one, and stores nothing', async () => {
    const runtime = await createRuntime({ store: memoryStore(), machines, clock: new ManualClock() });
    const error = await runtime.start('inlineAtStart', { id: 's-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InlineChildError);
    expect((error as Error).message).toMatch(
      /^Run 's-1' could not start: it spawns child 'c0' from inline logic.*Nothing was stored\.$/,
    );
    await expect(runtime.getSnapshot('s-1')).rejects.toBeInstanceOf(UnknownRunError);
    await runtime.close();
  });

  it('sets aside a run stored with one, with the reason and the fix', async () => {
    const store = memoryStore();
    // As an earlier statewright stored it: XState's production build persists the child's logic
    // object as its src (its development build, which the tests run, refuses to).
    const actor = createActor(inlineSpawner).start();
    const snapshot = JSON.parse(JSON.stringify({ ...actor.getPersistedSnapshot(), children: {} }));
    snapshot.children.c1 = { src: { id: 'counter', config: { id: 'counter' } }, snapshot: { status: 'active' } };
    actor.stop();
    const at = Date.UTC(2026, 0, 1);
    await store.commit([
      {
        run: {
          ...{ runId: 'old-1', machine: 'inlineSpawner', version: 1, status: 'active', state: '(machine)' },
          ...{ snapshot, input: null, seq: 1, owner: undefined, createdAt: at, updatedAt: at },
        },
        expectedSeq: undefined,
      },
    ]);
    const runtime = await createRuntime({ store, machines, clock: new ManualClock() });
    const error = await runtime.dispatch('old-1', { type: 'NOTE' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RunSetAsideError' });
    const [setAside] = runtime.setAside();
    expect(setAside).toMatchObject({ runId: 'old-1' });
    expect(setAside!.reason).toContain("its child 'c1' was spawned from inline logic");
    expect(setAside!.reason).toContain('spawn it by that name');
    await runtime.close();
  });

  it('stores and restores the same child named in setup({ actors }) and spawned by name', async () => {
    const path = join(testDir('named-child'), 'state.db');
    const clock = new ManualClock();
    let store = sqliteStore(path);
    const first = await createRuntime({ store, machines, clock });
    await first.start('namedSpawner', { id: 'n-1' });
    await first.dispatch('n-1', { type: 'ADD' });
    await first.dispatch('n-1', { type: 'BUMP' });
    await first.close();
    await store.close();

    store = sqliteStore(path);
    const second = await createRuntime({ store, machines, clock });
    const run = await second.dispatch('n-1', { type: 'BUMP' });
    const children = (run.snapshot as { children: Record<string, { src: string; snapshot: { context: unknown } }> })
      .children;
    expect(children.c1).toMatchObject({ src: 'counter', snapshot: { context: { count: 2 } } });
    await second.close();
    await store.close();
  });
});

describe('check', () => {
  it('flags a spawnChild of inline logic it can see, and not the named spawn or code it cannot read', () => {
    const found = checkMachine(inlineSpawnChild).filter((v) => v.rule === 'inline-child');
    expect(found).toEqual([
      expect.objectContaining({
        severity: 'error',
        state: '',
        message: expect.stringContaining(
          "its transition on ADD spawns child 'c2' from inline logic, which statewright cannot store and restore",
        ),
      }),
    ]);
    expect(checkMachine(namedSpawner).filter((v) => v.rule === 'inline-child')).toEqual([]);
    // A spawn inside an assign is code: only the runtime's refusal sees it.
    expect(checkMachine(inlineSpawner).filter((v) => v.rule === 'inline-child')).toEqual([]);
  });
});
