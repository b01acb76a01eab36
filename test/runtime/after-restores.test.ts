/**
 * XState's `after` delays keep XState's instant across restores, on every store: a delay fires at
 * the instant its state armed it, whatever steps and restarts came between (an order deadline of 30
 * days, armed on day 0, an event on day 29 and a restart: cancelled on day 30, not on day 59); one
 * that fell due while no host ran fires at once after the restore; a 30-day delay is not fired early
 * by Node's timer overflow; and a run stored before the instants were kept is counted from its last
 * committed step, as before.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { explainRun, explanationText } from '../../src/explain/index.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { ARMED_DELAYS } from '../../src/runtime/timers/after-delays.js';
import { jsonFileStore, memoryStore, postgresStore, sqliteStore, type Store } from '../../src/stores/index.js';
import { DAY, orderMachine } from '../fixtures/order-deadline.js';
import { testDir } from '../stores/temp-dir.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';

const T0 = Date.UTC(2026, 0, 5, 9);

/** A reminder 15 s after it is set, unless done; a snooze note keeps it set. */
const reminder = setup({ types: { context: {} as { notes: number }, events: {} as { type: 'NOTE' } } }).createMachine({
  id: 'reminder',
  initial: 'set',
  context: { notes: 0 },
  states: {
    set: { after: { 15000: 'due' }, on: { NOTE: { actions: assign({ notes: ({ context }) => context.notes + 1 }) } } },
    due: { type: 'final' },
  },
});
const machines: Lifecycles = {
  order: { machine: orderMachine, version: 1, summary: 'an order with a 30-day deadline' },
  reminder: { machine: reminder, version: 1, summary: 'a reminder after 15 s' },
};

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});

/** Each store, and how a restarted host opens it again (the memory store lives on in this process). */
const kinds: Record<string, () => { open(): Promise<Store>; close(store: Store): Promise<void> }> = {
  memory: () => {
    const store = memoryStore();
    return { open: async () => store, close: async () => {} };
  },
  'json-file': () => {
    const dir = testDir('after-json');
    return { open: async () => jsonFileStore(dir), close: (store) => store.close() };
  },
  sqlite: () => {
    const path = join(testDir('after-sqlite'), 'state.db');
    return { open: async () => sqliteStore(path), close: (store) => store.close() };
  },
  ...(!skipPostgres && {
    postgres: () => {
      requirePostgres();
      const schema = freshSchema();
      schemas.push(schema);
      return { open: async () => postgresStore({ connectionString: url, schema }), close: (store) => store.close() };
    },
  }),
};

describe.each(Object.keys(kinds))('an `after` delay across restores (%s)', (kind) => {
  it('armed on day 0, an event on day 29 and a restart: fires on day 30, not day 59', async () => {
    const where = kinds[kind]!();
    const clock = new ManualClock(T0);
    let store = await where.open();
    const first = await createRuntime({ store, machines, clock });
    await first.start('order', { id: 'o-1' });
    // Node's timers hold 24.8 days: a 30-day delay handed to them as it is would fire at once.
    clock.set(T0 + 29 * DAY);
    await first.flush();
    expect((await first.getSnapshot('o-1')).state).toBe('open');
    const noted = await first.dispatch('o-1', { type: 'NOTE' });
    expect(noted.context.notes).toBe(1);
    await first.close();
    await where.close(store);

    store = await where.open();
    const second = await createRuntime({ store, machines, clock });
    expect((await second.getSnapshot('o-1')).state).toBe('open');
    // A moment before day 30 nothing: a timer due then would have queued its event inside `set`, which `flush` waits for.
    clock.set(T0 + 30 * DAY - 1);
    await second.flush();
    expect((await second.getSnapshot('o-1')).state).toBe('open');
    clock.set(T0 + 30 * DAY);
    await second.flush();
    expect((await second.getSnapshot('o-1')).state).toBe('cancelled');
    const history = await second.history('o-1');
    expect(history.map((e) => [e.event.type, e.at])).toEqual([
      ['NOTE', T0 + 29 * DAY],
      [expect.stringMatching(/^xstate\.after\./), T0 + 30 * DAY],
    ]);
    await second.close();
    await where.close(store);
  });

  it('a 15 s delay, a step at 8 s and a restart: fires at 15 s, not 23 s', async () => {
    const where = kinds[kind]!();
    const clock = new ManualClock(T0);
    let store = await where.open();
    const first = await createRuntime({ store, machines, clock });
    await first.start('reminder', { id: 'r-1' });
    clock.set(T0 + 8_000);
    await first.dispatch('r-1', { type: 'NOTE' });
    await first.close();
    await where.close(store);

    store = await where.open();
    const second = await createRuntime({ store, machines, clock });
    clock.set(T0 + 14_999);
    await second.flush();
    expect((await second.getSnapshot('r-1')).state).toBe('set');
    clock.set(T0 + 15_000);
    await second.flush();
    expect((await second.history('r-1')).at(-1)).toMatchObject({ after: 'due', at: T0 + 15_000 });
    await second.close();
    await where.close(store);
  });

  it('fires at once after a restore a delay that fell due while no host ran', async () => {
    const where = kinds[kind]!();
    const clock = new ManualClock(T0);
    let store = await where.open();
    const first = await createRuntime({ store, machines, clock });
    await first.start('order', { id: 'o-2' });
    clock.set(T0 + 10 * DAY);
    await first.dispatch('o-2', { type: 'NOTE' });
    await first.close();
    await where.close(store);

    clock.set(T0 + 45 * DAY);
    store = await where.open();
    const second = await createRuntime({ store, machines, clock });
    // The restored delay is armed through the clock, for its past instant: the next tick fires it.
    clock.advance(0);
    await second.flush();
    const history = await second.history('o-2');
    expect(history.at(-1)).toMatchObject({ before: 'open', after: 'cancelled', at: T0 + 45 * DAY });
    await second.close();
    await where.close(store);
  });
});

describe('a run stored before the instants were kept', () => {
  it('is counted from its last committed step, as before', async () => {
    const clock = new ManualClock(T0);
    const store = memoryStore();
    const first = await createRuntime({ store, machines, clock });
    await first.start('order', { id: 'new' });
    clock.set(T0 + 2 * DAY);
    await first.dispatch('new', { type: 'NOTE' });
    await first.close();
    const stored = (await store.load('new'))!;
    const { [ARMED_DELAYS]: armed, ...older } = stored.snapshot as Record<string, unknown>;
    expect(armed).toEqual({ [Object.keys(armed as object)[0]!]: T0 + 30 * DAY });
    // The same run as an older statewright stored it: no instants beside XState's fields.
    await store.commit([{ run: { ...stored, runId: 'old', snapshot: older }, expectedSeq: undefined }]);

    const second = await createRuntime({ store, machines, clock });
    // Woken by an event (no host held it): restored with its delay counted from its last step, day 2.
    clock.set(T0 + 3 * DAY);
    await second.dispatch('old', { type: 'NOTE' });
    clock.set(T0 + 30 * DAY);
    await second.flush();
    expect((await second.getSnapshot('new')).state).toBe('cancelled');
    expect((await second.getSnapshot('old')).state).toBe('open');
    // And that instant is kept from then on: the NOTE of day 3 did not move it to day 33.
    clock.set(T0 + 32 * DAY);
    await second.flush();
    expect((await second.history('old')).at(-1)).toMatchObject({ after: 'cancelled', at: T0 + 32 * DAY });
    await second.close();
  });
});

describe('explain', () => {
  it('shows an armed `after` delay as a deadline with its due instant and target, across steps, and for an older run', async () => {
    const clock = new ManualClock(T0);
    const store = memoryStore();
    const runtime = await createRuntime({ store, machines, clock });
    await runtime.start('order', { id: 'x-1' });
    clock.set(T0 + 29 * DAY);
    await runtime.dispatch('x-1', { type: 'NOTE' });
    const explained = await explainRun(runtime, 'x-1');
    expect(explained.deadlines).toEqual([{ name: 'after 30 days', at: T0 + 30 * DAY, target: 'cancelled' }]);
    expect(explanationText(explained)).toContain(
      `deadlines:\n  after 30 days: fires at ${new Date(T0 + 30 * DAY).toISOString()}, to cancelled\n`,
    );
    expect(JSON.stringify(explained.deadlines)).not.toContain('xstate.');
    // An older run, stored without the instant: the one its restore would arm, counted from its last step.
    const stored = (await store.load('x-1'))!;
    const { [ARMED_DELAYS]: _armed, ...older } = stored.snapshot as Record<string, unknown>;
    await store.commit([{ run: { ...stored, runId: 'x-old', snapshot: older }, expectedSeq: undefined }]);
    expect((await explainRun(runtime, 'x-old')).deadlines).toEqual([
      { name: 'after 30 days', at: T0 + 59 * DAY, target: 'cancelled' },
    ]);
    // Fired: none armed.
    clock.set(T0 + 30 * DAY);
    await runtime.flush();
    expect((await explainRun(runtime, 'x-1')).deadlines).toEqual([]);
    await runtime.close();
  });
});
