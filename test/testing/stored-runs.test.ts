/**
 * `--against-stored` (testStoredRuns): the live runs of a SQLite store written by version 1 of a
 * lifecycle, restored under an edited definition and driven on, each path on a copy of the store.
 * A state renamed under them and a migration that drops a field are found and the runs named; the
 * edit done right carries them, and says by which migration.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/index.js';
import { testStoredRuns } from '../../src/testing/stored-runs.js';
import { testDir } from '../stores/temp-dir.js';
import { shopDroppingMigration, shopMigrated, shopRenamed, shopV1 } from './machines.js';

/** A store with three v1 runs: one in cart, two in review. */
async function storedByV1(): Promise<string> {
  const file = join(testDir('stored-runs'), 'runs.db');
  const store = sqliteStore(file);
  const runtime = await createRuntime({ store, machines: { shop: shopV1 }, clock: new ManualClock() });
  await runtime.start('shop', { id: 'in-cart' });
  for (const id of ['in-review-1', 'in-review-2']) {
    await runtime.start('shop', { id });
    await runtime.dispatch(id, { type: 'CHECKOUT' });
  }
  await runtime.close();
  await store.close();
  return file;
}

async function against(file: string, lifecycle: typeof shopMigrated | typeof shopRenamed) {
  const store = sqliteStore(file, { readOnly: true });
  try {
    return await testStoredRuns(lifecycle, store, {
      name: 'shop',
      copies: { copyOf: { kind: 'sqlite', location: file } },
    });
  } finally {
    await store.close();
  }
}

describe('testing the stored runs under the current definition', { timeout: 60_000 }, () => {
  it('names the runs a state renamed under them breaks, and the migration they need', async () => {
    const runs = await against(await storedByV1(), shopRenamed);
    const broken = runs.filter((r) => r.broken);
    expect(broken.map((r) => r.runId).sort()).toEqual(['in-review-1', 'in-review-2']);
    expect(broken[0]!.broken).toContain('review');
    expect(broken[0]!.migration).toContain('register it as version 2 with migrations[1]');
    // The run in cart restores and goes on along every path from there.
    const cart = runs.find((r) => r.runId === 'in-cart')!;
    expect(cart.broken).toBeUndefined();
    expect(cart.paths.map((p) => p.path.description)).toEqual(['CHECKOUT → APPROVE']);
    expect(cart.paths.filter((p) => p.failure)).toEqual([]);
  });

  it('finds a migration that drops a field the current context has', async () => {
    const runs = await against(await storedByV1(), shopDroppingMigration);
    expect(runs.every((r) => r.broken?.includes("lacks 'coupon'"))).toBe(true);
    expect(runs.map((r) => r.migration)).toEqual(Array(3).fill('migrations[1] (1 → 2)'));
  });

  it('carries every run with the migration done right, and drives each on, crashing at every commit', async () => {
    const runs = await against(await storedByV1(), shopMigrated);
    expect(runs.filter((r) => r.broken)).toEqual([]);
    expect(runs.map((r) => r.migration)).toEqual(Array(3).fill('migrations[1] (1 → 2)'));
    const paths = runs.flatMap((r) => r.paths);
    expect(paths.filter((p) => p.failure).map((p) => p.failure)).toEqual([]);
    expect(paths.map((p) => p.path.description).sort()).toEqual(['APPROVE', 'APPROVE', 'CHECKOUT → APPROVE']);
    expect(paths.every((p) => p.restores > 0)).toBe(true);
  });
});
