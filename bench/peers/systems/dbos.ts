/**
 * DBOS Transact on Postgres, set up as its docs advise (`DBOS.setConfig` with a system database
 * URL, workflows registered before `DBOS.launch()`). Two ways to count a step:
 * - `dbos()`: one step = one workflow with one step (`DBOS.runStep`), called and awaited;
 * - `dbosLongWorkflow()`: one step = one more `DBOS.runStep` inside a workflow that keeps running,
 *   the closest to an event sent to a statewright run. The bench hands each step to its workflow in
 *   memory (not durable: recovery would not replay it), so that only the step itself is measured.
 * DBOS is a singleton, so both share one launch on one schema.
 */
import { DBOS, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import { randomUUID } from 'node:crypto';
import { dropSchema, freshSchema, postgresUrl } from '../postgres.js';
import type { OpenSystem, Sleepers, System } from '../system.js';

const oneStep = DBOS.registerWorkflow(async (n: number) => DBOS.runStep(async () => n + 1, { name: 'increment' }), {
  name: 'oneStep',
});

type Request = (() => void) | 'stop';

/** The in-memory hand-over from the bench to one long workflow: each request is a step (resolved once durable) or the end. */
class Mailbox {
  #queue: Request[] = [];
  #waiting: ((request: Request) => void) | undefined;
  put(request: Request) {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting(request);
    else this.#queue.push(request);
  }
  take(): Promise<Request> {
    const next = this.#queue.shift();
    return next ? Promise.resolve(next) : new Promise((resolve) => (this.#waiting = resolve));
  }
}
const mailboxes = new Map<string, Mailbox>();

const longWorkflow = DBOS.registerWorkflow(
  async (id: string) => {
    const mailbox = mailboxes.get(id)!;
    for (let n = 0; ; n++) {
      const request = await mailbox.take();
      if (request === 'stop') return n;
      await DBOS.runStep(async () => n, { name: 'increment' });
      request();
    }
  },
  { name: 'longWorkflow' },
);

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

/** The one launch the throughput contenders share, shut down (and its schema dropped) by the last to close. */
let shared: { schema: string; users: number; launched: Promise<void> } | undefined;

async function openShared(
  workflows: OpenSystem['workflows'],
  onClose: () => Promise<void> = async () => {},
): Promise<OpenSystem> {
  if (!shared) {
    const schema = freshSchema('dbos');
    shared = { schema, users: 0, launched: launch(schema) };
  }
  shared.users++;
  await shared.launched;
  return {
    workflows,
    async close() {
      await onClose();
      if (--shared!.users > 0) return;
      const { schema } = shared!;
      shared = undefined;
      await DBOS.shutdown();
      await dropSchema(schema);
    },
  };
}

export function dbos(): System {
  return {
    name: 'DBOS Transact, a workflow of one step per step',
    store: 'postgres',
    open: () =>
      openShared(async () => {
        let n = 0;
        return async () => {
          await oneStep(n++);
        };
      }),
  };
}

export function dbosLongWorkflow(): System {
  return {
    name: 'DBOS Transact, one more step of a running workflow',
    store: 'postgres',
    async open() {
      const running: { id: string; handle: WorkflowHandle<number> }[] = [];
      return openShared(
        async (count) => {
          const ids = Array.from({ length: count }, () => randomUUID());
          for (const id of ids) {
            mailboxes.set(id, new Mailbox());
            running.push({ id, handle: await DBOS.startWorkflow(longWorkflow)(id) });
          }
          return (i) => new Promise<void>((resolve) => mailboxes.get(ids[i]!)!.put(resolve));
        },
        async () => {
          for (const { id } of running) mailboxes.get(id)!.put('stop');
          await Promise.all(running.map(({ handle }) => handle.getResult()));
        },
      );
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
        if (pending.length !== count)
          throw new Error(`DBOS holds ${pending.length} pending waiters after restart, expected ${count}`);
      };
    },
    drop: dropSchema,
  };
}
