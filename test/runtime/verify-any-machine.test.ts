/**
 * `verify` passes on every healthy run of any machine: what the runtime commits is exactly what the
 * replay can take again (issue 39). Small machines of the shapes that failed it (an actor's event
 * while the start is committed, `onSnapshot` children, a `forwardTo` the child refuses, children
 * spawned without an id) and of XState's own events (`always` chains, `raise`, delayed `raise` and
 * `sendTo`, `after`), each driven through the real runtime on every store, straight through and
 * restored mid-way by a new runtime, then verified.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  assign,
  createMachine,
  enqueueActions,
  forwardTo,
  fromCallback,
  fromObservable,
  fromPromise,
  raise,
  sendParent,
  sendTo,
  setup,
  spawnChild,
  type AnyActorRef,
  type AnyStateMachine,
} from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { createRuntime, ManualClock, verifyRun, type Runtime } from '../../src/runtime/index.js';
import { jsonFileStore, memoryStore, postgresStore, sqliteStore, type Store } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';
import { until } from '../support/until.js';

const T0 = Date.UTC(2026, 11, 5, 9);

/** A machine, and how a run of it is driven: events sent, the clock moved, states waited for, and where a restart may come. */
interface Shape {
  machine: AnyStateMachine;
  drive(run: Driver): Promise<void>;
  /** Where the run ends, and the context it ends with. */
  ends: { state: string; context?: unknown };
}

interface Driver {
  send(event: { type: string; [key: string]: unknown }): Promise<void>;
  advance(ms: number): Promise<void>;
  reach(state: string): Promise<void>;
  /** The host stops here (its runtime closed) and a new runtime on the same store restores the run: a no-op in a straight run. */
  restart(): Promise<void>;
}

/** Its first state's invoked promise and the root's callback child both report while the start is being committed. */
const startsTalking: Shape = {
  machine: setup({
    actors: {
      boot: fromPromise(async () => 'booted'),
      hello: fromCallback(({ sendBack }) => {
        sendBack({ type: 'HELLO' });
      }),
    },
  }).createMachine({
    id: 'startsTalking',
    initial: 'booting',
    context: { boot: '', greeted: 0 },
    invoke: { src: 'hello' },
    on: { HELLO: { actions: assign({ greeted: ({ context }) => context.greeted + 1 }) } },
    states: {
      booting: {
        invoke: { src: 'boot', onDone: { target: 'ready', actions: assign({ boot: ({ event }) => event.output }) } },
      },
      ready: { on: { FINISH: 'done' } },
      done: { type: 'final' },
    },
  }),
  async drive(run) {
    await run.reach('ready');
    await run.restart();
    await run.send({ type: 'FINISH' });
  },
  // The restored root invokes its callback child again, which says hello again.
  ends: { state: 'done' },
};

const counter = createMachine({
  id: 'counter',
  initial: 'counting',
  context: { n: 0 },
  states: { counting: { on: { INC: { actions: assign({ n: ({ context }) => context.n + 1 }) } } } },
});

/** Watches a child machine and an observable with `onSnapshot`: one assigns, the other only runs an action. */
const watchesChildren: Shape = {
  machine: setup({
    actors: {
      counter,
      numbers: fromObservable<number, void>(() => ({
        subscribe(observer: unknown) {
          const { next } = observer as { next?: (n: number) => void };
          next?.(1);
          next?.(2);
          return { unsubscribe() {} };
        },
      })),
    },
    actions: { noted: () => {} },
  }).createMachine({
    id: 'watchesChildren',
    initial: 'watching',
    context: { seen: -1 },
    states: {
      watching: {
        invoke: [
          {
            id: 'counter',
            src: 'counter',
            onSnapshot: { actions: assign({ seen: ({ event }) => (event.snapshot.context as { n: number }).n }) },
          },
          { id: 'numbers', src: 'numbers', onSnapshot: { actions: 'noted' } },
        ],
        on: { INC: { actions: sendTo('counter', { type: 'INC' }) }, STOP: 'stopped' },
      },
      stopped: { type: 'final' },
    },
  }),
  async drive(run) {
    await run.send({ type: 'INC' });
    await run.restart();
    await run.send({ type: 'INC' });
    await run.send({ type: 'STOP' });
  },
  ends: { state: 'stopped', context: { seen: 2 } },
};

/** Forwards PING to a child whose guard refuses it unless `ok`: the parent takes it either way. */
const forwards: Shape = {
  machine: setup({
    types: { events: {} as { type: 'PING'; ok: boolean } | { type: 'DONE' } },
    actors: {
      picky: setup({ types: { events: {} as { type: 'PING'; ok: boolean } } }).createMachine({
        id: 'picky',
        initial: 'waiting',
        states: {
          waiting: { on: { PING: { guard: ({ event }) => event.ok, target: 'pinged' } } },
          pinged: { entry: sendParent({ type: 'DONE' }) },
        },
      }),
    },
  }).createMachine({
    id: 'forwards',
    initial: 'relaying',
    states: {
      relaying: { invoke: { id: 'picky', src: 'picky' }, on: { PING: { actions: forwardTo('picky') }, DONE: 'done' } },
      done: { type: 'final' },
    },
  }),
  async drive(run) {
    await run.send({ type: 'PING', ok: false });
    await run.restart();
    await run.send({ type: 'PING', ok: false });
    await run.send({ type: 'PING', ok: true });
    await run.reach('done');
  },
  ends: { state: 'done' },
};

const worker = createMachine({
  id: 'worker',
  initial: 'working',
  states: { working: { on: { STOP: 'stopped' } }, stopped: { type: 'final' } },
});

/** Spawns workers with no id: in its context factory, in `assign`, with `spawnChild`; counts their done events. */
const spawns: Shape = {
  machine: setup({
    types: { context: {} as { workers: AnyActorRef[]; finished: number } },
    actors: { worker },
  }).createMachine({
    id: 'spawns',
    initial: 'hiring',
    context: ({ spawn }) => ({ workers: [spawn('worker')], finished: 0 }),
    on: { 'xstate.done.actor.*': { actions: assign({ finished: ({ context }) => context.finished + 1 }) } },
    states: {
      hiring: {
        on: {
          HIRE: { actions: assign({ workers: ({ context, spawn }) => [...context.workers, spawn('worker')] }) },
          TEMP: { actions: spawnChild('worker') },
          STOP_ALL: {
            target: 'closing',
            actions: enqueueActions(({ context, enqueue }) => {
              for (const ref of context.workers) enqueue.sendTo(ref, { type: 'STOP' });
            }),
          },
        },
      },
      closing: { always: { guard: ({ context }) => context.finished === context.workers.length, target: 'closed' } },
      closed: {},
    },
  }),
  async drive(run) {
    await run.send({ type: 'HIRE' });
    await run.restart();
    await run.send({ type: 'HIRE' });
    await run.send({ type: 'TEMP' });
    await run.send({ type: 'STOP_ALL' });
    await run.reach('closed');
  },
  ends: { state: 'closed' },
};

/** `always` chains, `raise`, a delayed `raise`, a delayed `sendTo` a child that answers, and `after`. */
const timed: Shape = {
  machine: setup({
    actors: {
      echo: createMachine({ id: 'echo', on: { PING: { actions: sendParent({ type: 'PONG' }) } } }),
    },
  }).createMachine({
    id: 'timed',
    initial: 'idle',
    context: { raised: false, ticks: 0 },
    invoke: { id: 'echo', src: 'echo' },
    states: {
      idle: { on: { GO: 'a' } },
      a: { always: 'b' },
      b: { always: { target: 'c', actions: raise({ type: 'RAISED' }) } },
      c: {
        entry: [raise({ type: 'TICK' }, { delay: 1000 }), sendTo('echo', { type: 'PING' }, { delay: 2000 })],
        on: {
          RAISED: { actions: assign({ raised: true }) },
          TICK: { actions: assign({ ticks: ({ context }) => context.ticks + 1 }) },
          PONG: 'd',
        },
      },
      d: { after: { 5000: 'done' } },
      done: { type: 'final' },
    },
  }),
  async drive(run) {
    await run.send({ type: 'GO' });
    await run.reach('c');
    await run.advance(1000);
    await run.advance(1000);
    await run.reach('d');
    await run.restart();
    await run.advance(5000);
    await run.reach('done');
  },
  ends: { state: 'done', context: { raised: true, ticks: 1 } },
};

const shapes: Record<string, Shape> = { startsTalking, watchesChildren, forwards, spawns, timed };
const lifecycles: Lifecycles = Object.fromEntries(
  Object.entries(shapes).map(([name, shape]) => [name, { machine: shape.machine, version: 1, summary: name }]),
);

/** Each store, opened anew for every runtime on the same place (a restart closes it and opens it again). */
interface StoreKind {
  place(): string;
  open(place: string): Store | Promise<Store>;
  dispose?(place: string): Promise<void>;
}

/** The memory store lives in this process alone: a restart keeps the same one open. */
const memoryStores = new Map<string, Store>();
const storeKinds: Record<string, StoreKind> = {
  memory: {
    place: () => `memory-${memoryStores.size}`,
    open: (place) => memoryStores.get(place) ?? memoryStores.set(place, memoryStore()).get(place)!,
  },
  'json-file': { place: () => join(testDir('verify-any'), 'store'), open: (place) => jsonFileStore(place) },
  sqlite: { place: () => join(testDir('verify-any'), 'state.db'), open: (place) => sqliteStore(place) },
  ...(!skipPostgres && {
    postgres: {
      place: () => (requirePostgres(), freshSchema()),
      open: (schema: string) => postgresStore({ connectionString: url, schema }),
      dispose: (schema: string) => dropSchema(schema),
    },
  }),
};

/** Drives one run of `shape` on a store of `kind`, restarting the host where the shape says if `restarting`. */
async function driveRun(name: string, kind: StoreKind, restarting: boolean): Promise<{ store: Store; runId: string }> {
  const place = kind.place();
  if (kind.dispose) afterAll(() => kind.dispose!(place));
  const clock = new ManualClock(T0);
  const runId = `${name}-${restarting ? 'restored' : 'straight'}`;
  let store = await kind.open(place);
  let rt: Runtime = await createRuntime({ store, machines: lifecycles, clock });
  const stateOf = async () => (await rt.getSnapshot(runId)).state;
  const driver: Driver = {
    async send(event) {
      await rt.dispatch(runId, event as never);
      await rt.flush();
    },
    async advance(ms) {
      clock.advance(ms);
      await rt.flush();
    },
    async reach(state) {
      await until(`${runId} to reach ${state}`, async () => {
        await rt.flush();
        return (await stateOf()) === state;
      });
    },
    async restart() {
      if (!restarting) return;
      await rt.flush();
      await rt.close();
      if (!memoryStores.has(place)) {
        await store.close();
        store = await kind.open(place);
      }
      rt = await createRuntime({ store, machines: lifecycles, clock });
      await rt.flush();
    },
  };
  await rt.start(name as never, { id: runId });
  await shapes[name]!.drive(driver);
  await rt.flush();
  const run = await rt.getSnapshot(runId);
  expect(run.state).toBe(shapes[name]!.ends.state);
  if (shapes[name]!.ends.context !== undefined) expect(run.context).toEqual(shapes[name]!.ends.context);
  await rt.close();
  return { store, runId };
}

describe.each(Object.entries(storeKinds))('verify on a %s store', (_kind, kind) => {
  for (const name of Object.keys(shapes)) {
    for (const restarting of [false, true]) {
      it(`passes every run of ${name}${restarting ? ', restored mid-way' : ''}`, async () => {
        const { store, runId } = await driveRun(name, kind, restarting);
        try {
          const report = await verifyRun(store, lifecycles, runId);
          expect(report.mismatches).toEqual([]);
          expect(report.ok).toBe(true);
        } finally {
          await store.close();
        }
      });
    }
  }
});
