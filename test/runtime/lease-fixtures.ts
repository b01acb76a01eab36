/**
 * What the lease and hibernation tests share: a small job lifecycle with a worker (an agent-like
 * actor) and a durable timer, a worker that spawns, adopts or ends a pretend process as the real
 * agent actor does, the stores to run on, and a store whose lease renewals can be cut off.
 */
import { join } from 'node:path';
import { assign, fromCallback, setup, type EventObject } from 'xstate';
import type { Lifecycle, RecoveringRun } from '../../machines/lifecycle.js';
import { createRuntime, type RunHandle, type Runtime, type RuntimeOptions } from '../../src/runtime/index.js';
import { afterEach, onTestFinished } from 'vitest';
import { memoryStore, postgresStore, sqliteStore } from '../../src/stores/index.js';
import type { OwnerInfo, Store, StoreLeases } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';

export const jobMachine = setup({
  types: {
    input: {} as { deadline: number },
    context: {} as { deadline: number; notes: string[] },
    events: {} as
      | { type: 'FINISH' }
      | { type: 'RESUME' }
      | { type: 'EXPIRE' }
      | { type: 'CRASHED' }
      | { type: 'NOTE'; text: string },
  },
  actors: {
    worker: fromCallback<EventObject, { job: string }>(() => {}),
    deadline: fromCallback<EventObject, { deadline: number; event: EventObject }>(() => {}),
  },
}).createMachine({
  id: 'job',
  initial: 'working',
  context: ({ input }) => ({ deadline: input.deadline, notes: [] }),
  on: { NOTE: { actions: assign({ notes: ({ context, event }) => [...context.notes, event.text] }) } },
  states: {
    working: {
      invoke: [
        { src: 'worker', input: ({ self }) => ({ job: self.id }) },
        { src: 'deadline', input: ({ context }) => ({ deadline: context.deadline, event: { type: 'EXPIRE' } }) },
      ],
      on: { FINISH: 'waiting', EXPIRE: 'expired', CRASHED: 'crashed' },
    },
    waiting: {
      invoke: { src: 'deadline', input: ({ context }) => ({ deadline: context.deadline, event: { type: 'EXPIRE' } }) },
      on: { EXPIRE: 'expired', RESUME: 'working' },
    },
    expired: { type: 'final' },
    crashed: { type: 'final' },
  },
});

/** The job lifecycle; `recovered` hears of every call of its recovery rule (a worker whose host died crashed). */
export function jobLifecycle(recovered: RecoveringRun[] = []): Lifecycle {
  return {
    machine: jobMachine,
    version: 1,
    summary: 'a job with a worker and a deadline',
    recover: (run) => {
      recovered.push(run);
      return run.snapshot.value === 'working' ? [{ type: 'CRASHED' }] : [];
    },
  };
}

/**
 * A host of the job lifecycle with leases: its workers are `processes`' pretend processes under its
 * owner id, `recovered` hears of its recovery rule, and the rest of `options` goes to createRuntime.
 */
export function jobHost(
  processes: Processes,
  {
    recovered,
    ttlMs,
    owner,
    ...options
  }: Omit<RuntimeOptions, 'machines' | 'owner' | 'leases'> & {
    owner: string | (Partial<OwnerInfo> & { id: string });
    ttlMs: number;
    recovered?: RecoveringRun[];
  },
): Promise<Runtime> {
  const id = typeof owner === 'string' ? owner : owner.id;
  return createRuntime({
    machines: { job: jobLifecycle(recovered) },
    actors: processes.actorsFor(id),
    owner,
    leases: { ttlMs },
    ...options,
  });
}

/**
 * Pretend agent processes, one per run, and what the hosts did with them: a worker started on a
 * run whose process is alive adopts it, else spawns one once its step is durable; stopped, it
 * lets go of it when handing over (or when another host took the run) and ends it otherwise, once the
 * stopping step is durable; one stopped before it started ends the process a previous host left.
 */
export class Processes {
  readonly alive = new Set<string>();
  readonly log: string[] = [];

  workerFor(host: string) {
    return (run: RunHandle) =>
      fromCallback<EventObject, { job: string }>(() => {
        let stopped = false;
        run.afterCommit(() => {
          if (stopped) return;
          this.log.push(`${host} ${this.alive.has(run.runId) ? 'adopt' : 'spawn'} ${run.runId}`);
          this.alive.add(run.runId);
        });
        return () => {
          stopped = true;
          if (run.handingOver) return;
          // Stopped before it started (a restored run its recovery ended): it ends the process a
          // previous host left, as the agent actor ends the agent recorded on disk.
          run.afterStop(() => {
            if (run.handingOver || !this.alive.delete(run.runId)) return;
            this.log.push(`${host} end ${run.runId}`);
          });
        };
      });
  }

  actorsFor(host: string) {
    return { job: { worker: this.workerFor(host) } };
  }
}

/** The stores with leases the tests run on: each `open()` is one host's handle on the same store (a connection of its own where the store has them). */
export const leaseStores: Array<{ name: string; shared: () => { open(): Promise<Store> } }> = [
  {
    name: 'memory',
    shared: () => {
      const store = memoryStore();
      return { open: async () => store };
    },
  },
  {
    name: 'sqlite',
    shared: () => {
      const path = join(testDir('leases'), 'state.db');
      return { open: async () => sqliteStore(path) };
    },
  },
  // Left out only when the run asks to skip Postgres (STATEWRIGHT_SKIP_POSTGRES=1, which the summary reports).
  ...(skipPostgres
    ? []
    : [
        {
          name: 'postgres',
          shared: () => {
            requirePostgres();
            const schema = freshSchema();
            // After the test's own cleanup has closed every pool on it.
            onTestFinished(() => dropSchema(schema));
            return { open: () => postgresStore({ connectionString: url, schema }) };
          },
        },
      ]),
];

/**
 * `store` as one host sees it over a link that can be cut: while cut, every lease call fails (the
 * host is alive but can neither renew nor sweep), and commits still go through, so that the test
 * sees each late commit reach the store and be refused there.
 */
export function cuttable(store: Store): { store: Store; cut(): void; mend(): void } {
  let cut = false;
  const leases = store.leases!;
  const unreachable = () => Promise.reject(new Error('network cut: the store cannot be reached'));
  const cutLeases: StoreLeases = {
    claimDue: (...args) => (cut ? unreachable() : leases.claimDue(...args)),
    claimRun: (...args) => (cut ? unreachable() : leases.claimRun(...args)),
    renew: (...args) => (cut ? unreachable() : leases.renew(...args)),
    release: (...args) => (cut ? unreachable() : leases.release(...args)),
    holders: () => (cut ? unreachable() : leases.holders()),
  };
  return {
    store: storeWith(store, { leases: cutLeases }),
    cut: () => void (cut = true),
    mend: () => void (cut = false),
  };
}

/**
 * `store` as a test alters it: the methods in `changed` in place of its own, and its lease calls
 * in `changed.leases` in place of those (the rest of its leases as they are). Everything else is
 * the store itself, so what the test does not alter behaves as usual.
 */
export function storeWith(
  store: Store,
  changed: Partial<Omit<Store, 'leases'>> & { leases?: Partial<StoreLeases> },
): Store {
  const { leases: changedLeases, ...methods } = changed;
  const leases = changedLeases && { ...store.leases!, ...changedLeases };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'leases' && leases) return leases;
      if (Object.hasOwn(methods, property)) return methods[property as keyof typeof methods];
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A promise and what settles it, as ES2024's `Promise.withResolvers` (Node 22) gives them: a test's gates and signals. */
export function withResolvers(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

/**
 * `store` with one of its methods held back: each call waits until `letGo()` (then runs as usual),
 * and `started` resolves at the first call. A test opens a window between a call and its answer.
 */
export function heldBack<K extends 'load' | 'findIdempotent'>(
  store: Store,
  method: K,
): { store: Store; started: Promise<void>; letGo(): void } {
  const held = withResolvers();
  const started = withResolvers();
  const own = store[method] as (...args: unknown[]) => unknown;
  const heldMethod = async (...args: unknown[]) => {
    started.resolve();
    await held.promise;
    return own.apply(store, args);
  };
  return { store: storeWith(store, { [method]: heldMethod }), started: started.promise, letGo: held.resolve };
}

/**
 * Registers an `afterEach` that closes what the returned `keep` was given: the runtimes first
 * (closing one lets go of its leases in the store), then each store once.
 */
export function closedAfterEach(): <T extends Runtime | Store>(it: T) => T {
  const opened: Array<Runtime | Store> = [];
  afterEach(async () => {
    const all = opened.splice(0);
    for (const it of all) if (!('kind' in it)) await it.close();
    for (const it of new Set(all)) if ('kind' in it) await it.close();
  });
  return (it) => (opened.push(it), it);
}
