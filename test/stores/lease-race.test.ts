/**
 * Several processes sweep one store at the same instant (claim-racer.ts): each due run must be
 * claimed by exactly one of them, its epoch raised exactly once. On SQLite the racers share one
 * file; on Postgres one schema.
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { Store } from '../../src/stores/store.js';
import { startProgram } from '../support/child-processes.js';
import { leasedCreate } from './lease-conformance.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from './test-postgres.js';
import { testDir } from './temp-dir.js';

const RUNS = 200;
const RACERS = 4;
/** The runtime's clock: the released runs are due by it. */
const DUE_BY = 1_000_000;

interface Claimed {
  runId: string;
  epoch: number;
  previousEpoch: number | null;
}

/**
 * 200 runs at epoch 1, a third each: held by a host whose lease ran out, released and due, handed
 * over. Then the racers sweep at once; resolves with what each claimed.
 */
async function race(store: Store, racerArgs: (holder: string) => string[]): Promise<Map<string, Claimed[]>> {
  const ids = Array.from({ length: RUNS }, (_, i) => `run-${String(i).padStart(3, '0')}`);
  const past = Date.now() - 60_000;
  await store.commit(
    ids.map((runId) =>
      leasedCreate(runId, 'gone-host', {
        lease: { holder: 'gone-host', epoch: 1, now: past - 10_000, expiresAt: past },
      }),
    ),
  );
  const release = (i: number) =>
    ids.filter((_, n) => n % 3 === i).map((runId) => ({ runId, epoch: 1, wakeAt: DUE_BY - 1 }));
  await store.leases!.release('gone-host', release(1), { now: past, handedOver: false });
  await store.leases!.release('gone-host', release(2), { now: past, handedOver: true });

  const holders = Array.from({ length: RACERS }, (_, i) => `racer-${i}`);
  const racers = holders.map((holder) =>
    startProgram(new URL('./claim-racer.ts', import.meta.url), racerArgs(holder), {
      stdin: 'pipe',
      stdout: 'pipe',
      buffer: false,
    }),
  );
  const lines = racers.map((racer) => createInterface({ input: racer.stdout! })[Symbol.asyncIterator]());
  const next = async (i: number) =>
    JSON.parse((await lines[i]!.next()).value as string) as { ready?: true; claims?: Claimed[] };
  // Every racer has opened the store before any starts.
  for (let i = 0; i < RACERS; i++) expect(await next(i)).toEqual({ ready: true });
  const startAt = Date.now() + 100;
  for (const racer of racers) racer.stdin!.end(`${startAt} ${DUE_BY}\n`);
  const answers = await Promise.all(holders.map(async (_, i) => (await next(i)).claims!));
  await Promise.all(racers);
  return new Map(holders.map((holder, i) => [holder, answers[i]!]));
}

async function expectEachClaimedOnce(store: Store, claimed: Map<string, Claimed[]>): Promise<void> {
  const all = [...claimed.values()].flat();
  console.info(
    `claim race on ${store.kind}: ${[...claimed].map(([holder, claims]) => `${holder} ${claims.length}`).join(', ')}`,
  );
  expect(all.map((c) => c.runId).sort()).toEqual(
    Array.from({ length: RUNS }, (_, i) => `run-${String(i).padStart(3, '0')}`),
  );
  for (const claim of all) expect(claim, claim.runId).toMatchObject({ epoch: 2, previousEpoch: 1 });
  const stored = new Map((await store.list()).map((run) => [run.runId, run.lease]));
  for (const [holder, claims] of claimed)
    for (const { runId } of claims) expect(stored.get(runId), runId).toMatchObject({ holder, state: 'held', epoch: 2 });
}

describe('lease race: processes sweeping one SQLite file at once', () => {
  it(`gives each of ${RUNS} due runs to exactly one of ${RACERS} racing processes, its epoch raised once`, {
    timeout: 60_000,
  }, async () => {
    const path = join(testDir('lease-race'), 'state.db');
    const store = sqliteStore(path);
    onTestFinished(() => store.close());
    await expectEachClaimedOnce(store, await race(store, (holder) => ['sqlite', path, holder]));
  });
});

describe.skipIf(skipPostgres)('lease race: processes sweeping one Postgres schema at once', () => {
  beforeAll(requirePostgres);
  it(`gives each of ${RUNS} due runs to exactly one of ${RACERS} racing processes, its epoch raised once`, {
    timeout: 60_000,
  }, async () => {
    const schema = freshSchema();
    const store = await postgresStore({ connectionString: url, schema });
    onTestFinished(async () => {
      await store.close();
      await dropSchema(schema);
    });
    await expectEachClaimedOnce(store, await race(store, (holder) => ['postgres', schema, holder]));
  });
});
