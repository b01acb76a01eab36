/**
 * What the lease conformance suite cannot see of the SQLite store's leases: that the sweep reads
 * partial indexes, that lease damage is found, and that two connections to one file fence each other.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SWEEP_QUERIES } from '../../src/stores/sqlite/statements.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { StoreCorruptionError } from '../../src/stores/store-errors.js';
import { LeaseLostError, type CommitLease, type Store } from '../../src/stores/store.js';
import { record, row } from './conformance.js';
import { leasedCreate, ownerOf } from './lease-conformance.js';
import { testDir } from './temp-dir.js';

const NOW = Date.UTC(2026, 2, 1, 12);
const TTL = 10_000;

function openStore(path: string): Store {
  const store = sqliteStore(path);
  onTestFinished(() => store.close());
  return store;
}

const planOf = (db: Database.Database, sql: string, ...params: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('; ');

describe('sqlite leases: the sweep reads indexes', () => {
  it('each sweep query and holders() is a read of its partial index, never a scan of the runs', async () => {
    const path = join(testDir('sqlite-lease-plans'), 'state.db');
    const store = openStore(path);
    // Enough runs of each kind that a scan would be a real choice for the planner.
    await store.commit(
      Array.from({ length: 300 }, (_, i) =>
        leasedCreate(`r${i}`, `h${i % 3}`, { wakeAt: i, ...(i % 10 === 0 && { status: 'done' }) }),
      ),
    );
    await store.leases!.release(
      'h1',
      Array.from({ length: 100 }, (_, i) => ({ runId: `r${3 * i + 1}`, epoch: 1, wakeAt: i })),
      { now: NOW, handedOver: false },
    );
    await store.leases!.release(
      'h2',
      Array.from({ length: 100 }, (_, i) => ({ runId: `r${3 * i + 2}`, epoch: 1, wakeAt: null })),
      { now: NOW, handedOver: true },
    );
    const db = new Database(path, { readonly: true });
    onTestFinished(() => void db.close());
    // The runs passed over (`passOver`) are one list, read once per query.
    const passOver = JSON.stringify(['r0']);
    const passedOver = '; LIST SUBQUERY 1; SCAN json_each VIRTUAL TABLE INDEX 1:(; CREATE BLOOM FILTER)?';
    expect(planOf(db, SWEEP_QUERIES.expired, NOW, passOver, 10)).toMatch(
      new RegExp(`^SEARCH runs USING INDEX runs_held \\(lease_expires<\\?\\)${passedOver}$`),
    );
    // The held runs alone (what hosts have busy), never the sleeping ones.
    expect(planOf(db, SWEEP_QUERIES.heldBy, 'h0', passOver, 10)).toMatch(
      new RegExp(`^SCAN runs USING INDEX runs_held${passedOver}$`),
    );
    expect(planOf(db, SWEEP_QUERIES.due, 50, passOver, 10)).toMatch(
      new RegExp(`^SEARCH runs USING INDEX runs_asleep_by_wake \\(wake_at>\\? AND wake_at<\\?\\)${passedOver}$`),
    );
    expect(planOf(db, SWEEP_QUERIES.handedOver, passOver, 10)).toMatch(
      new RegExp(`^SCAN runs USING COVERING INDEX runs_handed_over${passedOver}$`),
    );
    expect(planOf(db, SWEEP_QUERIES.holders)).toMatch(
      /^SCAN runs USING COVERING INDEX runs_held; USE TEMP B-TREE FOR GROUP BY$/,
    );
  });
});

describe('sqlite leases: damage', () => {
  it('finds a changed lease or deadline by its checksum, and renew leaves a damaged lease alone instead of hiding it', async () => {
    const path = join(testDir('sqlite-lease-damage'), 'state.db');
    let store = openStore(path);
    await store.commit([leasedCreate('a', 'h1', { wakeAt: 7 }), leasedCreate('b', 'h1')]);
    await store.close();
    for (const change of [
      `UPDATE runs SET lease_epoch = 7 WHERE run_id = 'a'`,
      `UPDATE runs SET wake_at = 8 WHERE run_id = 'a'`,
      `UPDATE runs SET lease_state = 'released' WHERE run_id = 'a'`,
    ]) {
      const restore = new Database(path);
      const saved = restore.prepare(`SELECT lease_epoch, wake_at, lease_state FROM runs WHERE run_id = 'a'`).get();
      restore.prepare(change).run();
      restore.close();
      store = openStore(path);
      await expect(store.load('a'), change).rejects.toMatchObject({
        name: 'StoreCorruptionError',
        path,
        reason: expect.stringMatching(/run a: its lease or next deadline .* \(checksum\)/),
      });
      await store.close();
      const undo = new Database(path);
      undo
        .prepare(
          `UPDATE runs SET lease_epoch = @lease_epoch, wake_at = @wake_at, lease_state = @lease_state WHERE run_id = 'a'`,
        )
        .run(saved as Record<string, unknown>);
      undo.close();
    }
    const damage = new Database(path);
    damage.prepare(`UPDATE runs SET lease_renewed = lease_renewed + 1 WHERE run_id = 'a'`).run();
    damage.close();
    store = openStore(path);
    expect(
      await store.leases!.renew(
        'h1',
        [
          { runId: 'a', epoch: 1 },
          { runId: 'b', epoch: 1 },
        ],
        { now: NOW + 3000, ttlMs: TTL },
      ),
    ).toEqual(['a']);
    await expect(store.load('a')).rejects.toBeInstanceOf(StoreCorruptionError);
    expect((await store.load('b'))!.lease!.renewedAt).toBe(NOW + 3000);
    // Nor does a step that moves the deadline of a run whose lease is damaged seal the damage anew.
    const moved = {
      run: row('a', 1, { owner: ownerOf('h1') }),
      event: record('a', 1),
      expectedSeq: 0,
      lease: { holder: 'h1', epoch: 1, now: NOW + 1, expiresAt: NOW + 1 + TTL },
      wakeAt: 9,
    };
    await expect(store.commit([moved])).rejects.toMatchObject({
      name: 'StoreCorruptionError',
      reason: expect.stringMatching(/run a: its lease or next deadline/),
    });
    await expect(store.load('a')).rejects.toBeInstanceOf(StoreCorruptionError);
  });
});

describe('sqlite leases: two connections to one file', () => {
  it('refuses the late write of a connection whose run another connection claimed, though it remembers the run', async () => {
    const path = join(testDir('sqlite-lease-shared'), 'state.db');
    const first = openStore(path);
    const second = openStore(path);
    const lease = (holder: string, epoch: number, now: number): CommitLease => ({
      holder,
      epoch,
      now,
      expiresAt: now + TTL,
    });
    const step = (seq: number, holder: string, epoch: number, now: number) => ({
      run: row('a', seq, { owner: ownerOf(holder) }),
      event: record('a', seq),
      expectedSeq: seq - 1,
      lease: lease(holder, epoch, now),
    });
    await first.commit([leasedCreate('a', 'h1', { lease: lease('h1', 1, NOW) })]);
    await first.commit([step(1, 'h1', 1, NOW + 1)]);
    // h1 paused past its lease; the second connection's host takes the run over.
    const [claim] = await second.leases!.claimDue(ownerOf('h2'), { now: NOW + TTL, dueBy: 0, ttlMs: TTL, limit: 10 });
    expect(claim!.run.lease).toMatchObject({ holder: 'h2', epoch: 2 });
    // The process that is gone, for the recovery rule.
    expect(claim!.previousOwner).toEqual(ownerOf('h1'));
    await expect(first.commit([step(2, 'h1', 1, NOW + TTL + 1)])).rejects.toBeInstanceOf(LeaseLostError);
    await second.commit([step(2, 'h2', 2, NOW + TTL + 2)]);
    expect((await first.history('a')).map((e) => e.seq)).toEqual([1, 2]);
    expect(await first.load('a')).toMatchObject({ seq: 2, owner: ownerOf('h2'), lease: { holder: 'h2', epoch: 2 } });
  });
});

describe('sqlite leases: what a fenced step writes', () => {
  /** WAL pages written by 100 steps (2 on each of 50 runs, after 2 each unmeasured), fenced or not. */
  async function pagesPerStep(fenced: boolean, wakeAt: (seq: number) => number | null): Promise<number> {
    const path = join(testDir('sqlite-lease-pages'), 'state.db');
    const store = openStore(path);
    const runs = Array.from({ length: 50 }, (_, i) => `r${i}`);
    const lease = (now: number): CommitLease => ({ holder: 'h1', epoch: 1, now, expiresAt: now + TTL });
    const stepOf = (runId: string, seq: number) => ({
      run: row(runId, seq, { owner: ownerOf('h1') }),
      event: record(runId, seq),
      expectedSeq: seq - 1,
      wakeAt: wakeAt(seq),
      // Each step a little later on the wall clock, but within the first third of the lease.
      ...(fenced && { lease: lease(NOW + seq) }),
    });
    await store.commit(
      runs.map((runId) =>
        fenced
          ? leasedCreate(runId, 'h1', { lease: lease(NOW), wakeAt: wakeAt(0) })
          : { run: row(runId, 0), expectedSeq: undefined, wakeAt: wakeAt(0) },
      ),
    );
    for (const seq of [1, 2]) for (const runId of runs) await store.commit([stepOf(runId, seq)]);
    const walSize = () => statSync(`${path}-wal`).size;
    const before = walSize();
    for (const seq of [3, 4]) for (const runId of runs) await store.commit([stepOf(runId, seq)]);
    const spy = new Database(path, { readonly: true });
    const pageSize = spy.pragma('page_size', { simple: true }) as number;
    spy.close();
    return (walSize() - before) / (24 + pageSize) / 100;
  }

  it('writes no more pages than an unfenced step while the deadline stays and the lease is fresh, and one more when the deadline moves', async () => {
    const unfenced = await pagesPerStep(false, () => 7);
    const fenced = await pagesPerStep(true, () => 7);
    const moving = await pagesPerStep(true, (seq) => 1000 + seq);
    expect(fenced).toBeLessThanOrEqual(unfenced * 1.05);
    // The run's row, and not the index of held leases by expiry (the renewal is not due yet).
    expect(moving).toBeGreaterThan(fenced + 0.9);
    expect(moving).toBeLessThan(fenced + 1.1);
  });
});
