/**
 * The events XState makes for a run itself (an invoked actor's done and error events, `after`
 * delays, an event a child sends its parent) are the run's events like any other: applied in
 * order, committed with the snapshot and audited, replayed from the log, and after a restart the
 * invoked work runs again until its event is committed. A user's machine written the usual XState
 * way (`invoke: { onDone, onError }`, `after`) moves in the runtime as it would in XState.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import type { Lifecycle } from '../../machines/lifecycle.js';
import { createRuntime, ManualClock, verifyRun, type LogEntry } from '../../src/runtime/index.js';
import { memoryStore, sqliteStore } from '../../src/stores/index.js';
import { until } from '../support/until.js';

const T0 = Date.UTC(2026, 10, 28, 9);

/** Ships (a promise, its output kept), waits a delay, then is pinged by a child callback actor. */
const shipping = setup({
  types: { context: {} as { shippedTo?: string; failure?: string }, events: {} as { type: 'SHIP' } | { type: 'PING' } },
  actors: {
    ship: fromPromise<string>(async () => {
      throw new Error('placeholder: the runtime provides ship');
    }),
    pinger: fromCallback(() => () => {}),
  },
}).createMachine({
  id: 'shipping',
  initial: 'ready',
  context: {},
  states: {
    ready: { on: { SHIP: 'shipping' } },
    shipping: {
      invoke: {
        src: 'ship',
        onDone: { target: 'cooling', actions: assign({ shippedTo: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ failure: ({ event }) => (event.error as Error).message }) },
      },
    },
    cooling: { after: { 60000: 'pinging' } },
    pinging: { invoke: { src: 'pinger' }, on: { PING: 'done' } },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
});
const lifecycle: Lifecycle = { machine: shipping, version: 1, summary: 'ships' };

/** `ship` resolving with `to` (or rejecting with `failure`), and a pinger that sends PING to its parent at once. */
const actorsShipping = (to: string, failure?: string) => ({
  shipping: {
    ship: () =>
      fromPromise<string>(async () => {
        if (failure) throw new Error(failure);
        return to;
      }),
    pinger: () =>
      fromCallback(({ sendBack }) => {
        sendBack({ type: 'PING' });
      }),
  },
});

describe("XState's own events in a run", () => {
  it("commits a done event with its output, an after delay on the runtime clock, and a child's event, each audited and replayed", async () => {
    const clock = new ManualClock(T0);
    const store = memoryStore();
    const rt = await createRuntime({ store, machines: { shipping: lifecycle }, actors: actorsShipping('prod'), clock });
    await rt.start('shipping', { id: 's-1' });
    await rt.dispatch('s-1', { type: 'SHIP' });
    const cooling = await until('the done event committed', async () => {
      const run = await rt.getSnapshot('s-1');
      return run.state === 'cooling' ? run : undefined;
    });
    expect(cooling.context).toEqual({ shippedTo: 'prod' });
    clock.advance(60_000);
    await until('the delay and the ping committed', async () => (await rt.getSnapshot('s-1')).state === 'done');
    const history = await rt.history('s-1');
    expect(history.map((step) => [step.event.type, step.after, step.actor])).toEqual([
      ['SHIP', 'shipping', undefined],
      [expect.stringMatching(/^xstate\.done\.actor\./), 'cooling', expect.any(String)],
      [expect.stringMatching(/^xstate\.after\.60000\./), 'pinging', 'xstate'],
      ['PING', 'done', expect.any(String)],
    ]);
    expect(history[1]!.event).toMatchObject({ output: 'prod' });
    expect((await verifyRun(store, { shipping: lifecycle }, 's-1')).ok).toBe(true);
    await rt.close();
  });

  it("commits an error event with the error's message; one no state handles is refused on the error channel", async () => {
    const store = memoryStore();
    const rt = await createRuntime({
      store,
      machines: { shipping: lifecycle },
      actors: actorsShipping('prod', 'no route to prod'),
    });
    await rt.start('shipping', { id: 's-2' });
    await rt.dispatch('s-2', { type: 'SHIP' });
    const failed = await until('the error event committed', async () => {
      const run = await rt.getSnapshot('s-2');
      return run.state === 'failed' ? run : undefined;
    });
    expect(failed.context).toEqual({ failure: 'no route to prod' });
    const [, errorStep] = await rt.history('s-2');
    expect(errorStep!.event).toMatchObject({ error: { name: 'Error', message: 'no route to prod' } });
    await rt.close();

    // The same failure where nothing handles it: said on the log, and the run stays as committed.
    const unhandled = setup({ actors: { ship: fromPromise<string>(async () => 'x') } }).createMachine({
      id: 'unhandled',
      initial: 'ready',
      states: { ready: { on: { SHIP: 'shipping' } }, shipping: { invoke: { src: 'ship' } } },
    });
    const logged: LogEntry[] = [];
    const rt2 = await createRuntime({
      store,
      machines: { unhandled: { machine: unhandled, version: 1, summary: '' } },
      actors: { unhandled: { ship: () => fromPromise(async () => Promise.reject(new Error('lost'))) } },
      onLog: (entry) => logged.push(entry),
    });
    await rt2.start('unhandled', { id: 'u-1' });
    await rt2.dispatch('u-1', { type: 'SHIP' });
    const said = await until('the failure said', () => logged.find((e) => e.runId === 'u-1' && e.level === 'error'));
    expect(said.message).toMatch(/actor '.*' failed \(lost\).*Give the invoke an onError/);
    // A later event is applied after the dropped one: the run is where it was, its log without it.
    await rt2.flush();
    expect((await rt2.getSnapshot('u-1')).state).toBe('shipping');
    expect((await rt2.history('u-1')).map((step) => step.event.type)).toEqual(['SHIP']);
    await rt2.close();
  });

  it('runs the invoked work again after a restart until its event is committed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statewright-xstate-events-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'runs.db');
    // The first host's ship never settles: it dies (closes) with the run in `shipping`.
    const first = await createRuntime({
      store: sqliteStore(path),
      machines: { shipping: lifecycle },
      actors: {
        shipping: {
          ship: () => fromPromise<string>(() => new Promise(() => {})),
          pinger: () => fromCallback(() => {}),
        },
      },
    });
    await first.start('shipping', { id: 's-3' });
    await first.dispatch('s-3', { type: 'SHIP' });
    await first.close();
    await first.store.close();

    const store = sqliteStore(path);
    const second = await createRuntime({ store, machines: { shipping: lifecycle }, actors: actorsShipping('staging') });
    const cooling = await until('the restored run shipped', async () => {
      const run = await second.getSnapshot('s-3');
      return run.state === 'cooling' ? run : undefined;
    });
    expect(cooling.context).toEqual({ shippedTo: 'staging' });
    expect((await verifyRun(store, { shipping: lifecycle }, 's-3')).ok).toBe(true);
    await second.close();
    await store.close();
  });
});

describe('after delays across a restore', () => {
  const timed = setup({ types: { events: {} as { type: 'GO' } } }).createMachine({
    id: 'timed',
    initial: 'idle',
    states: { idle: { on: { GO: 'waiting' } }, waiting: { after: { 60000: 'late' } }, late: { type: 'final' } },
  });
  const machines = { timed: { machine: timed, version: 1, summary: 'waits a minute' } };

  it('fires at its time, counted from the step that entered the state, not from the restore', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statewright-after-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'runs.db');
    const clock = new ManualClock(T0);
    const first = await createRuntime({ store: sqliteStore(path), machines, clock });
    await first.start('timed', { id: 't-1' });
    await first.dispatch('t-1', { type: 'GO' });
    await first.close();
    await first.store.close();

    clock.advance(45_000);
    const store = sqliteStore(path);
    const second = await createRuntime({ store, machines, clock });
    expect((await second.getSnapshot('t-1')).state).toBe('waiting');
    // 15 s were left at the restore: at 14.999 s nothing, at 15 s the delay's event is committed.
    clock.advance(14_999);
    await second.flush();
    expect((await second.getSnapshot('t-1')).state).toBe('waiting');
    clock.advance(1);
    await until('the delay to fire', async () => (await second.getSnapshot('t-1')).state === 'late');
    expect((await second.history('t-1')).map((step) => step.event.type)).toEqual([
      'GO',
      expect.stringMatching(/^xstate\.after\.60000\./),
    ]);
    await second.close();
    await store.close();
  });
});
