import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import type { Store } from '../../src/stores/store.js';
import { storeConformance, type StoreHarness } from './conformance.js';
import { leaseConformance } from './lease-conformance.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from './test-postgres.js';

/** The conformance suite on a real Postgres (see test-postgres.ts), each test in a schema of its own. */
describe.skipIf(skipPostgres)('postgres', () => {
  beforeAll(requirePostgres);
  const harness: StoreHarness = {
    name: 'postgres',
    durable: true,
    async fresh() {
      const schema = freshSchema();
      let store: Store = await postgresStore({ connectionString: url, schema });
      return {
        get store() {
          return store;
        },
        async reopen() {
          await store.close();
          store = await postgresStore({ connectionString: url, schema });
          return store;
        },
        warnings: () => [],
        async dispose() {
          await store.close();
          await dropSchema(schema);
        },
      };
    },
  };
  storeConformance(harness);
  leaseConformance(harness);
});

describe.skipIf(skipPostgres)('postgres store: two hosts', () => {
  beforeAll(requirePostgres);
  it('lets exactly one of two writers holding the same seq win, whichever commits first', async () => {
    const schema = freshSchema();
    const [a, b] = [
      await postgresStore({ connectionString: url, schema }),
      await postgresStore({ connectionString: url, schema }),
    ];
    onTestFinished(async () => {
      await Promise.all([a.close(), b.close()]);
      await dropSchema(schema);
    });
    const row = (seq: number, state: string) => ({
      runId: 'shared',
      machine: 'execution',
      version: 1,
      status: 'active',
      state,
      snapshot: { value: state },
      input: null,
      seq,
      owner: undefined,
      createdAt: 1,
      updatedAt: 1 + seq,
    });
    await a.commit([{ run: row(0, 'pending'), expectedSeq: undefined }]);
    const event = (state: string) => ({
      runId: 'shared',
      seq: 1,
      event: { type: state },
      at: 2,
      before: 'pending',
      after: state,
    });
    const outcomes = await Promise.allSettled([
      a.commit([{ run: row(1, 'queued'), event: event('queued'), expectedSeq: 0 }]),
      b.commit([{ run: row(1, 'cancelled'), event: event('cancelled'), expectedSeq: 0 }]),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { name: 'CommitConflictError' } });
    const history = await b.history('shared');
    expect(history).toHaveLength(1);
    expect((await a.load('shared'))!.state).toBe(history[0]!.after);
  });
});
