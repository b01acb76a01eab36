import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/stores/sqlite/sqlite-schema.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { StoreCorruptionError, StoreFormatError } from '../../src/stores/store-errors.js';
import type { Store } from '../../src/stores/store.js';
import { create, record, row, step } from './conformance.js';
import { testDir } from './temp-dir.js';

/**
 * Runs r0 (no events), r1 (70 events: past two checkpoints, so its row lags its log) and r2..r9
 * (5 to 40 events), every third event with an idempotency key and a result.
 */
async function writeStore(path: string): Promise<void> {
  const store = sqliteStore(path);
  const lengths: Record<string, number> = { r0: 0, r1: 70 };
  for (let i = 2; i <= 9; i++) lengths[`r${i}`] = 5 * (i - 1);
  for (const [runId, length] of Object.entries(lengths)) {
    await store.commit([create(runId)]);
    for (let seq = 1; seq <= length; seq++) {
      const keyed = seq % 3 === 0;
      await store.commit([
        step(
          runId,
          seq,
          keyed ? { event: record(runId, seq, { idempotencyKey: `k${seq}` }), result: { answer: seq } } : {},
        ),
      ]);
    }
  }
  // Closing the last connection checkpoints the WAL into the main file and removes it.
  await store.close();
}

/** Everything the store answers: the list, each run, its history, and its idempotency keys. */
async function readAll(store: Store, runIds: readonly string[]) {
  const answers: Record<string, unknown> = { list: await store.list() };
  for (const runId of runIds) {
    answers[`load ${runId}`] = await store.load(runId);
    const history = await store.history(runId);
    answers[`history ${runId}`] = history;
    for (const event of history)
      if (event.idempotencyKey)
        answers[`key ${runId} ${event.idempotencyKey}`] = await store.findIdempotent(runId, event.idempotencyKey);
  }
  return answers;
}

/** A seeded generator (mulberry32), so every run of the test flips the same bytes. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('sqlite store: a damaged main file', () => {
  it('gives the data as written or StoreCorruptionError naming the file, for a byte flipped in every byte of the header, every page header and page bodies', {
    timeout: 120_000,
  }, async () => {
    const dir = testDir('sqlite-flips');
    const original = join(dir, 'original.db');
    await writeStore(original);
    const bytes = readFileSync(original);
    const pageSize = bytes.readUInt16BE(16);
    const pages = bytes.length / pageSize;
    const reference = sqliteStore(original, { readOnly: true });
    const runIds = (await reference.list()).map((r) => r.runId);
    const expected = await readAll(reference, runIds);
    await reference.close();
    expect(runIds).toHaveLength(10);
    expect(pages).toBeGreaterThan(20);

    // Every byte of the 100-byte file header; per page, 2 flips in its b-tree page header and 4 anywhere in it.
    const next = random(13);
    const pick = (from: number, to: number) => from + Math.floor(next() * (to - from));
    const offsets: number[] = Array.from({ length: 100 }, (_, i) => i);
    for (let page = 0; page < pages; page++) {
      const start = page * pageSize + (page === 0 ? 100 : 0);
      for (let i = 0; i < 2; i++) offsets.push(pick(start, start + 12));
      for (let i = 0; i < 4; i++) offsets.push(pick(start, (page + 1) * pageSize));
    }

    const outcomes = { same: 0, corrupt: 0, newer: 0, keyIndex: 0 };
    const path = join(dir, 'state.db');
    for (const offset of offsets) {
      const damaged = Buffer.from(bytes);
      damaged[offset]! ^= pick(1, 256);
      rmSync(`${path}-wal`, { force: true });
      rmSync(`${path}-shm`, { force: true });
      writeFileSync(path, damaged);
      const where = `flip at byte ${offset} (page ${Math.floor(offset / pageSize) + 1})`;
      let store: Store | undefined;
      try {
        store = sqliteStore(path);
        const answers = await readAll(store, runIds);
        const wrong = Object.keys(expected).filter(
          (question) => JSON.stringify(answers[question]) !== JSON.stringify(expected[question]),
        );
        if (!wrong.length) {
          outcomes.same++;
          continue;
        }
        // An idempotency key its damaged index no longer finds (a scan per miss would cost every
        // new key the whole log): the only answers that may differ, and verify's integrity check names it.
        for (const question of wrong)
          expect([question, answers[question]], where).toEqual([expect.stringMatching(/^key /), undefined]);
        expect(await store.checkIntegrity!(), where).not.toEqual([]);
        outcomes.keyIndex++;
      } catch (error) {
        // The schema version (bytes 60-63) flipped upwards reads as a file from a newer statewright.
        if (error instanceof StoreFormatError && offset >= 60 && offset < 64) {
          expect(error.found, where).toBeGreaterThan(SCHEMA_VERSION);
          outcomes.newer++;
          continue;
        }
        if (!(error instanceof StoreCorruptionError)) throw new Error(`${where}: ${String(error)}`, { cause: error });
        expect(error.path, where).toBe(path);
        outcomes.corrupt++;
      } finally {
        await store?.close();
      }
    }
    console.info(
      `sqlite flips: ${offsets.length} over ${pages} pages: ${outcomes.same} read as written, ${outcomes.corrupt} StoreCorruptionError, ${outcomes.newer} newer schema version, ${outcomes.keyIndex} idempotency index found by checkIntegrity`,
    );
    expect(outcomes.same + outcomes.corrupt + outcomes.newer + outcomes.keyIndex).toBe(offsets.length);
    expect(outcomes.corrupt).toBeGreaterThan(0);
  });
});

describe('sqlite store: checksums', () => {
  /** A store with run `a` at seq 3 (an idempotent second event), whose file is then changed behind its back by `change`. */
  async function changed(change: string): Promise<string> {
    const path = join(testDir('sqlite-checksum'), 'state.db');
    const store = sqliteStore(path);
    await store.commit([create('a')]);
    await store.commit([step('a', 1)]);
    await store.commit([step('a', 2, { event: record('a', 2, { idempotencyKey: 'k2' }), result: 'two' })]);
    await store.commit([step('a', 3)]);
    await store.close();
    const db = new Database(path);
    expect(db.prepare(change).run().changes).toBeGreaterThan(0);
    db.close();
    return path;
  }

  const corruption = (path: string, reason: RegExp) =>
    expect.objectContaining({ name: 'StoreCorruptionError', path, reason: expect.stringMatching(reason) });

  it('refuses a changed snapshot, state or input of a run as it loads or lists it', async () => {
    for (const change of [
      `UPDATE events SET row_snapshot = replace(row_snapshot, '"seq":3', '"seq":4') WHERE seq = 3`,
      `UPDATE events SET row_state = 's9' WHERE seq = 3`,
      `UPDATE runs SET input = '{"job":"deploy","attempt":1}'`,
      // The row's checkpoint, from event 1: behind the log, but checked all the same.
      `UPDATE runs SET snapshot = replace(snapshot, '"seq":1', '"seq":2')`,
    ]) {
      const path = await changed(change);
      const store = sqliteStore(path);
      await expect(store.load('a'), change).rejects.toEqual(corruption(path, /run a: .* \(checksum\)/));
      await expect(store.list(), change).rejects.toEqual(corruption(path, /run a/));
      await store.close();
    }
  });

  it('claims none of the runs of a claimRuns that meets a damaged run (one transaction), and claims and commits the others after', async () => {
    const path = join(testDir('sqlite-checksum'), 'state.db');
    let store = sqliteStore(path);
    await store.commit([create('a'), create('b')]);
    await store.commit([step('a', 1), step('b', 1)]);
    await store.close();
    const db = new Database(path);
    expect(db.prepare(`UPDATE runs SET input = '{"job":"deploy","attempt":9}' WHERE run_id = 'b'`).run().changes).toBe(
      1,
    );
    db.close();

    store = sqliteStore(path);
    const owner = { id: 'h', pid: 1, pidStart: '1', host: 'test' };
    const options = { now: Date.now(), ttlMs: 10_000 };
    await expect(store.leases!.claimRuns!(['a', 'b'], owner, options)).rejects.toEqual(
      corruption(path, /run b: .* \(checksum\)/),
    );
    expect((await store.load('a'))!.lease).toBeUndefined();
    // Claimed again alone, a is committed to from where its log ends.
    const claim = (await store.leases!.claimRun('a', owner, options))!;
    await store.commit([
      step('a', 2, {
        lease: { holder: 'h', epoch: claim.run.lease!.epoch, expiresAt: options.now + 10_000, now: options.now },
      }),
    ]);
    expect((await store.history('a')).map((e) => e.seq)).toEqual([1, 2]);
    await store.close();
  });

  it('refuses a changed event or idempotent result as it reads the history or the key', async () => {
    const path = await changed(
      `UPDATE events SET event = replace(event, '"n":2', '"n":20'), result = '"TWO"' WHERE seq = 2`,
    );
    const store = sqliteStore(path);
    expect(await store.load('a')).toEqual(row('a', 3));
    await expect(store.history('a')).rejects.toEqual(corruption(path, /run a: its event 2 .*\(checksum\)/));
    await expect(store.findIdempotent('a', 'k2')).rejects.toEqual(corruption(path, /run a: its event 2/));
    await store.close();
  });

  it("finds a lost link in a run's log instead of reading an older state", async () => {
    const path = await changed('UPDATE events SET next = NULL WHERE seq = 2');
    const store = sqliteStore(path);
    await expect(store.load('a')).rejects.toEqual(corruption(path, /run a: the newest event its log leads to/));
    await expect(store.history('a')).rejects.toBeInstanceOf(StoreCorruptionError);
    await store.close();
  });
});

describe('sqlite store: a damaged WAL (what docs/reliability.md tells users to back up)', () => {
  it('SQLite drops the damaged frame and every frame after it, silently: the run reads as of an earlier commit, consistent', async () => {
    const dir = testDir('sqlite-wal');
    const path = join(dir, 'state.db');
    const store = sqliteStore(path);
    await store.commit([create('a')]);
    // Commits stay in the WAL until a checkpoint (SQLite's automatic one comes at 1000 pages).
    for (let seq = 1; seq <= 6; seq++) await store.commit([step('a', seq)]);
    const copy = join(dir, 'copy.db');
    writeFileSync(copy, readFileSync(path));
    const wal = readFileSync(`${path}-wal`);
    await store.close();
    const pageSize = readFileSync(copy).readUInt16BE(16);
    const frames = (wal.length - 32) / (24 + pageSize);
    // A byte in the middle of the next-to-last frame: within one of the last commits.
    const frame = frames - 2;
    wal[32 + frame * (24 + pageSize) + 24 + 100]! ^= 0x55;
    writeFileSync(`${copy}-wal`, wal);
    const damaged = sqliteStore(copy);
    try {
      const run = await damaged.load('a');
      expect(run!.seq).toBeLessThan(6);
      expect(run).toEqual(row('a', run!.seq));
      expect((await damaged.history('a')).map((e) => e.seq)).toEqual(Array.from({ length: run!.seq }, (_, i) => i + 1));
      expect(await damaged.checkIntegrity!()).toEqual([]);
    } finally {
      await damaged.close();
    }
  });
});
