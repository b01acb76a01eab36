/**
 * DBOS Transact on Postgres, set up as its docs advise (`DBOS.setConfig` with a system database
 * URL, workflows registered before `DBOS.launch()`): one step = one workflow with one step
 * (`DBOS.runStep`), called and awaited. DBOS is a singleton, so a process opens it once.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { dropSchema, freshSchema, postgresUrl } from '../postgres.js';
import type { Sleepers, System } from '../system.js';

const oneStep = DBOS.registerWorkflow(async (n: number) => DBOS.runStep(async () => n + 1, { name: 'increment' }), { name: 'oneStep' });

/** Counts the waiters that reached their `recv`, on first run and again on recovery. */
const arrivals = { count: 0, wanted: Infinity, reached: () => {} };
const waitForArrivals = (wanted: number) =>
  new Promise<void>((resolve) => {
    arrivals.wanted = wanted;
    arrivals.reached = resolve;
    if (arrivals.count >= wanted) resolve();
  });

const waiter = DBOS.registerWorkflow(
  async () => {
    await DBOS.runStep(async () => 'started', { name: 'start' });
    if (++arrivals.count >= arrivals.wanted) arrivals.reached();
    await DBOS.recv<string>('go', 86_400);
  },
  { name: 'waiter' },
);

async function launch(schema: string) {
  DBOS.setConfig({
    name: 'statewright-peers',
    systemDatabaseUrl: postgresUrl,
    systemDatabaseSchemaName: schema,
    // Fixed, so that the next process recovers the workflows this one left (DBOS recovers only its own version's).
    applicationVersion: '1',
    logLevel: 'error',
  });
  await DBOS.launch();
}

export function dbos(): System {
  return {
    name: 'DBOS Transact',
    store: 'postgres',
    async open() {
      const schema = freshSchema('dbos');
      await launch(schema);
      return {
        async workflows() {
          let n = 0;
          return async () => {
            await oneStep(n++);
          };
        },
        async close() {
          await DBOS.shutdown();
          await dropSchema(schema);
        },
      };
    },
  };
}

/** Waiting DBOS workflows: each ran one step and waits in `DBOS.recv` (a day's timeout). */
export function dbosSleepers(): Sleepers {
  return {
    freshLocation: () => freshSchema('dbos'),
    async open(schema) {
      await launch(schema);
      let started = 0;
      return {
        async wait(count) {
          const arrived = waitForArrivals((started += count));
          for (let done = 0; done < count; done += 100) {
            await Promise.all(Array.from({ length: Math.min(100, count - done) }, () => DBOS.startWorkflow(waiter)()));
          }
          await arrived;
        },
      };
    },
    async recover(schema, count) {
      // Ready: every pending workflow has been recovered and re-run up to its `recv` again.
      const arrived = waitForArrivals(count);
      await launch(schema);
      await arrived;
      return async () => {
        const pending = await DBOS.listWorkflows({ workflowName: 'waiter', status: 'PENDING' });
        if (pending.length !== count) throw new Error(`DBOS holds ${pending.length} pending waiters after restart, expected ${count}`);
      };
    },
    drop: dropSchema,
  };
}
