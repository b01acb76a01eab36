/**
 * statewright itself, imported from the repository's source: the execution lifecycle, one run per
 * workflow, one step = one event dispatched and awaited (the event and the resulting snapshot
 * committed in one transaction before `dispatch` resolves). Events cycle running -> recovering ->
 * running, as in bench/runtime.bench.ts, so a run never ends.
 */
import { lifecycles } from '../../../machines/index.js';
import { createRuntime, postgresStore, sqliteStore, type Runtime, type Store } from '../../../src/index.js';
import { dropSchema, freshSchema, postgresUrl } from '../postgres.js';
import { dropSqliteFile, freshSqliteFile } from '../sqlite-files.js';
import type { Sleepers, StoreKind, System } from '../system.js';

const CYCLE = ['RECOVER', 'START'] as const;

const storeAt = async (kind: StoreKind, location: string): Promise<Store> =>
  kind === 'postgres' ? postgresStore({ connectionString: postgresUrl, schema: location }) : sqliteStore(location);

const freshLocation = (kind: StoreKind) =>
  kind === 'postgres' ? freshSchema('statewright') : freshSqliteFile('statewright');

async function dropLocation(kind: StoreKind, location: string) {
  if (kind === 'postgres') await dropSchema(location);
  else dropSqliteFile(location);
}

/** Starts `count` runs, a hundred at a time, and brings each to `running`. */
async function runningRuns(rt: Runtime, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let done = 0; done < count; done += 100) {
    const batch = Array.from({ length: Math.min(100, count - done) }, async () => {
      const { runId } = await rt.start('execution');
      await rt.dispatch(runId, { type: 'ENQUEUE' });
      await rt.dispatch(runId, { type: 'START' });
      return runId;
    });
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

export function statewright(kind: StoreKind): System {
  return {
    name: 'statewright',
    store: kind,
    reference: true,
    async open() {
      const location = freshLocation(kind);
      const store = await storeAt(kind, location);
      const rt = await createRuntime({ store, machines: lifecycles });
      return {
        async workflows(count) {
          const ids = await runningRuns(rt, count);
          const applied = ids.map(() => 0);
          return async (i) => {
            await rt.dispatch(ids[i]!, { type: CYCLE[applied[i]!++ % 2]! });
          };
        },
        async close() {
          await rt.close();
          await store.close();
          await dropLocation(kind, location);
        },
      };
    },
  };
}

/** Waiting statewright runs: started, in `pending`, waiting for ENQUEUE. */
export function statewrightSleepers(kind: StoreKind): Sleepers {
  return {
    freshLocation: () => freshLocation(kind),
    async open(location) {
      const rt = await createRuntime({ store: await storeAt(kind, location), machines: lifecycles });
      return {
        async wait(count) {
          for (let done = 0; done < count; done += 100) {
            await Promise.all(Array.from({ length: Math.min(100, count - done) }, () => rt.start('execution')));
          }
        },
      };
    },
    async recover(location, count) {
      // Ready: createRuntime has resolved, which restores every run that is not finished.
      const rt = await createRuntime({ store: await storeAt(kind, location), machines: lifecycles });
      return async () => {
        const waiting = (await rt.list({ machine: 'execution', state: 'pending' })).length;
        if (waiting !== count)
          throw new Error(`statewright holds ${waiting} waiting runs after restart, expected ${count}`);
      };
    },
    drop: (location) => dropLocation(kind, location),
  };
}
