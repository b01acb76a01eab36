import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { SCHEMA_VERSION } from '../../src/stores/sqlite/sqlite-schema.js';
import { StoreCorruptionError, StoreFormatError, StoreReadOnlyError } from '../../src/stores/store-errors.js';
import { CommitConflictError, type Store } from '../../src/stores/store.js';
import Database from 'better-sqlite3';
import { create, record, row, seed, step, storeConformance, type StoreHarness } from './conformance.js';
import { fencedStep, leaseConformance, leasedCreate, leaseOf, ownerOf } from './lease-conformance.js';
import { tempDir } from './temp-dir.js';
import { asRead, asWritten, fromWtf8, toWtf8 } from '../../src/stores/sqlite/sqlite-text.js';

const sqliteHarness: StoreHarness = {
  name: 'sqlite',
  durable: true,
  async fresh() {
    const dir = await tempDir('sqlite');
    const path = join(dir.path, 'state.db');
    let store: Store = sqliteStore(path);
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = sqliteStore(path);
        return store;
      },
      warnings: () => [],
      async dispose() {
        await store.close();
        await dir.remove();
      },
    };
  },
};
storeConformance(sqliteHarness);
leaseConformance(sqliteHarness);

describe('sqlite store: damaged files', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('sqlite-damage');
  });
  afterEach(() => dir.remove());

  const openError = (path: string) => {
    try {
      sqliteStore(path).close();
    } catch (error) {
      return error;
    }
    throw new Error(`expected opening ${path} to fail`);
  };

  it('names the file and the reason when it is not a database', async () => {
    const path = join(dir.path, 'garbled.db');
    await writeFile(path, 'not a database, just words. '.repeat(200));
    const error = openError(path);
    expect(error).toBeInstanceOf(StoreCorruptionError);
    expect(error).toMatchObject({ path, reason: expect.stringContaining('SQLITE_NOTADB') });
    expect((error as Error).message).toContain(path);
  });

  it('names the file when its header is garbled after it held runs', async () => {
    const path = join(dir.path, 'state.db');
    const store = sqliteStore(path);
    await seed(store, 'r1', 3);
    await store.close();
    const bytes = await readFile(path);
    bytes.write('GARBLED HEADER!!', 0);
    await writeFile(path, bytes);
    expect(openError(path)).toMatchObject({ name: 'StoreCorruptionError', path });
  });
});

describe('sqlite store: files written by earlier versions', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('sqlite-upgrade');
  });
  afterEach(() => dir.remove());

  /** The tables of schema version 2, whose events were keyed by (run_id, seq). */
  const SCHEMA_V2 = `
    CREATE TABLE runs (run_id TEXT PRIMARY KEY, machine TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL,
      state TEXT NOT NULL, seq INTEGER NOT NULL, snapshot TEXT NOT NULL, input TEXT NOT NULL, owner TEXT,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
    CREATE INDEX runs_by_machine_status ON runs (machine, status, created_at);
    CREATE INDEX runs_by_status ON runs (status, created_at);
    CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, at INTEGER NOT NULL, actor TEXT,
      reason TEXT, idempotency_key TEXT, before_state TEXT NOT NULL, after_state TEXT NOT NULL, result TEXT,
      PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
    CREATE UNIQUE INDEX events_by_idempotency_key ON events (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE TABLE run_keys (run_id TEXT NOT NULL, key TEXT NOT NULL, machine TEXT NOT NULL, sort REAL NOT NULL, PRIMARY KEY (run_id, key)) WITHOUT ROWID;
    CREATE INDEX run_keys_by_key ON run_keys (machine, key, sort, run_id);
    CREATE TABLE run_key_sets (machine TEXT PRIMARY KEY, fingerprint TEXT NOT NULL);
    PRAGMA user_version = 2;`;

  /** Writes runs `a` (3 events, the second idempotent), `b` (none) and `c` (2) as version 2 did, interleaved in time. */
  function writeVersion2File(path: string): void {
    const db = new Database(path);
    db.exec(SCHEMA_V2);
    const insertRun = db.prepare(
      `INSERT INTO runs VALUES (?, 'execution', 1, 'active', ?, ?, ?, '{"job":"build","attempt":1}', NULL, ?, ?)`,
    );
    const insertEvent = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const runs = { a: row('a', 3), b: row('b', 0), c: row('c', 2) };
    for (const [id, run] of Object.entries(runs))
      insertRun.run(id, run.state, run.seq, JSON.stringify(run.snapshot), run.createdAt, run.updatedAt);
    for (const [id, seq] of [
      ['c', 1],
      ['a', 1],
      ['a', 2],
      ['c', 2],
      ['a', 3],
    ] as const) {
      const r = record(id, seq, seq === 2 && id === 'a' ? { idempotencyKey: 'k2' } : {});
      insertEvent.run(
        id,
        seq,
        JSON.stringify(r.event),
        r.at,
        r.actor,
        r.reason,
        r.idempotencyKey ?? null,
        r.before,
        r.after,
        r.idempotencyKey ? '"result-2"' : null,
      );
    }
    db.close();
  }

  it('converts a version 2 file: same runs, same histories, idempotency keys kept, and commits continue', async () => {
    const path = join(dir.path, 'state.db');
    writeVersion2File(path);
    const store = sqliteStore(path);
    try {
      expect((await store.list()).map((r) => [r.runId, r.seq])).toEqual([
        ['a', 3],
        ['b', 0],
        ['c', 2],
      ]);
      expect(await store.history('a')).toEqual([
        record('a', 1),
        record('a', 2, { idempotencyKey: 'k2' }),
        record('a', 3),
      ]);
      expect(await store.history('b')).toEqual([]);
      expect(await store.history('c')).toEqual([record('c', 1), record('c', 2)]);
      expect(await store.findIdempotent('a', 'k2')).toEqual({ seq: 2, result: 'result-2' });
      await store.commit([step('a', 4), step('b', 1)]);
      expect((await store.history('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect((await store.history('b')).map((e) => e.seq)).toEqual([1]);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('converts a version 3 file (the log without rows): same histories, and commits continue past a checkpoint', async () => {
    const path = join(dir.path, 'state.db');
    const db = new Database(path);
    db.exec(`
      CREATE TABLE runs (run_id TEXT PRIMARY KEY, machine TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL,
        state TEXT NOT NULL, seq INTEGER NOT NULL, snapshot TEXT NOT NULL, input TEXT NOT NULL, owner TEXT,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, last_event INTEGER);
      CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL, prev INTEGER, event TEXT NOT NULL,
        at INTEGER NOT NULL, actor TEXT, reason TEXT, idempotency_key TEXT, before_state TEXT NOT NULL, after_state TEXT NOT NULL, result TEXT);
      CREATE UNIQUE INDEX events_by_idempotency_key ON events (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      PRAGMA user_version = 3;`);
    const insertRun = db.prepare(
      `INSERT INTO runs VALUES (?, 'execution', 1, 'active', ?, ?, ?, '{"job":"build","attempt":1}', ?, ?, ?, ?)`,
    );
    const insertEvent = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, NULL)');
    let id = 0;
    const last: Record<string, number | null> = { a: null, c: null };
    for (const [runId, seq] of [
      ['c', 1],
      ['a', 1],
      ['a', 2],
      ['c', 2],
    ] as const) {
      const r = record(runId, seq);
      insertEvent.run(
        ++id,
        runId,
        seq,
        last[runId],
        JSON.stringify(r.event),
        r.at,
        r.actor,
        r.reason,
        r.before,
        r.after,
      );
      last[runId] = id;
    }
    for (const [runId, seq] of [
      ['a', 2],
      ['c', 2],
    ] as const) {
      const run = row(runId, seq);
      insertRun.run(
        runId,
        run.state,
        seq,
        JSON.stringify(run.snapshot),
        JSON.stringify(run.owner),
        run.createdAt,
        run.updatedAt,
        last[runId],
      );
    }
    db.close();
    const store = sqliteStore(path);
    try {
      // An active run from before leases is due at once (see sqlite-schema.ts), until a commit gives it its real deadline.
      expect(await store.load('a')).toEqual({ ...row('a', 2), wakeAt: 0 });
      expect(await store.history('c')).toEqual([record('c', 1), record('c', 2)]);
      for (let seq = 3; seq <= 40; seq++) await store.commit([step('a', seq)]);
      expect(await store.load('a')).toStrictEqual(row('a', 40));
      expect((await store.history('a')).map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await store.load('c')).toEqual({ ...row('c', 2), wakeAt: 0 });
    } finally {
      await store.close();
    }
  });

  /** What version 6 added to a version 5 file: its lease columns and their indexes. */
  const WITHOUT_LEASES = `
    DROP INDEX runs_held; DROP INDEX runs_asleep_by_wake; DROP INDEX runs_handed_over;
    ${['lease_holder', 'lease_state', 'lease_epoch', 'lease_expires', 'lease_renewed', 'wake_at', 'lease_checksum'].map((c) => `ALTER TABLE runs DROP COLUMN ${c};`).join(' ')}`;

  /** A version 4 file: the current one without its checksums, run `a` 40 events long (its row lags its log), `b` none. */
  async function writeVersion4File(path: string): Promise<void> {
    const store = sqliteStore(path);
    await seed(store, 'b', 0);
    await store.commit([create('a')]);
    for (let seq = 1; seq <= 40; seq++)
      await store.commit([
        step('a', seq, seq === 7 ? { event: record('a', 7, { idempotencyKey: 'k7' }), result: { n: 7 } } : {}),
      ]);
    await store.close();
    const db = new Database(path);
    db.exec(`${WITHOUT_LEASES} ALTER TABLE events DROP COLUMN checksum; ALTER TABLE events DROP COLUMN row_checksum;
      ALTER TABLE runs DROP COLUMN created_checksum; ALTER TABLE runs DROP COLUMN checksum; PRAGMA user_version = 4;`);
    db.close();
  }

  it('converts a version 4 file: every row gets its checksums, reads check them, and commits continue', async () => {
    const path = join(dir.path, 'state.db');
    await writeVersion4File(path);
    const store = sqliteStore(path);
    try {
      expect(await store.load('a')).toEqual({ ...row('a', 40), wakeAt: 0 });
      expect(await store.load('b')).toEqual({ ...row('b', 0), wakeAt: 0 });
      expect((await store.history('a')).map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await store.findIdempotent('a', 'k7')).toEqual({ seq: 7, result: { n: 7 } });
      await store.commit([step('a', 41), step('b', 1)]);
      expect(await store.load('a')).toStrictEqual(row('a', 41));
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(
      db.prepare('SELECT count(*) AS n FROM runs WHERE checksum IS NULL OR created_checksum IS NULL').get(),
    ).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM events WHERE checksum IS NULL').get()).toEqual({ n: 0 });
    // A changed event is found in a converted file as in a new one.
    db.close();
    const tamper = new Database(path);
    tamper.prepare(`UPDATE events SET reason = 'changed' WHERE run_id = 'a' AND seq = 3`).run();
    tamper.close();
    const reopened = sqliteStore(path);
    await expect(reopened.history('a')).rejects.toBeInstanceOf(StoreCorruptionError);
    await reopened.close();
  });

  it('converts a version 5 file: lease columns with their checksums, and its active runs due at once for the first sweep', async () => {
    const path = join(dir.path, 'state.db');
    const writer = sqliteStore(path);
    await seed(writer, 'a', 3);
    await seed(writer, 'b', 0);
    await writer.commit([create('c')]);
    await writer.commit([
      { run: row('c', 1, { status: 'done', state: 'success' }), event: record('c', 1), expectedSeq: 0 },
    ]);
    await writer.close();
    const db = new Database(path);
    db.exec(`${WITHOUT_LEASES} PRAGMA user_version = 5;`);
    db.close();
    const store = sqliteStore(path);
    try {
      expect(await store.load('a')).toEqual({ ...row('a', 3), wakeAt: 0 });
      expect(await store.load('c')).toStrictEqual(row('c', 1, { status: 'done', state: 'success' }));
      const owner = { id: 'upgraded-host', pid: 2, pidStart: '2', host: 'h' };
      const claims = await store.leases!.claimDue(owner, { now: 1000, dueBy: 0, ttlMs: 10_000, limit: 10 });
      expect(claims.map((c) => [c.run.runId, c.previous, c.run.lease])).toEqual(
        ['a', 'b'].map((runId) => [
          runId,
          undefined,
          { holder: 'upgraded-host', state: 'held', epoch: 1, expiresAt: 11_000, renewedAt: 1000 },
        ]),
      );
      expect(claims[0]!.run).toEqual({ ...row('a', 3), owner, wakeAt: 0, lease: claims[0]!.run.lease });
      await store.commit([
        { ...step('a', 4), lease: { holder: 'upgraded-host', epoch: 1, expiresAt: 12_000, now: 2000 }, wakeAt: 99 },
      ]);
      expect((await store.load('a'))!.wakeAt).toBe(99);
    } finally {
      await store.close();
    }
    const after = new Database(path, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(after.prepare('SELECT count(*) AS n FROM runs WHERE lease_checksum IS NULL').get()).toEqual({ n: 0 });
    after.close();
  });

  it('converts a version 6 file: held leases found through one index as before, and its lease checksums kept as written, not made anew', async () => {
    const path = join(dir.path, 'state.db');
    const now = Date.UTC(2026, 10, 24);
    const writer = sqliteStore(path);
    // a and c h1's, b h2's, d h4's for an hour.
    await writer.commit([
      ...(['a', 'c'] as const).map((runId) => leasedCreate(runId, 'h1', { lease: leaseOf('h1', 1, now) })),
      leasedCreate('b', 'h2', { lease: leaseOf('h2', 1, now) }),
      leasedCreate('d', 'h4', { lease: leaseOf('h4', 1, now, now + 3_600_000) }),
    ]);
    await writer.leases!.release('h1', [{ runId: 'c', epoch: 1, wakeAt: 5 }], { now: now + 1, handedOver: false });
    await writer.close();
    const db = new Database(path);
    // Version 6's two indexes of held leases; and run d's lease changed behind the store's back.
    db.exec(`DROP INDEX runs_held;
      CREATE INDEX runs_held_by_expiry ON runs (lease_expires) WHERE lease_state = 'held' AND status = 'active';
      CREATE INDEX runs_held_by_holder ON runs (lease_holder, owner) WHERE lease_state = 'held' AND status = 'active';
      UPDATE runs SET lease_epoch = 9 WHERE run_id = 'd';
      PRAGMA user_version = 6;`);
    db.close();
    const store = sqliteStore(path);
    try {
      expect((await store.leases!.holders()).map((h) => [h.owner.id, h.runs]).sort()).toEqual([
        ['h1', 1],
        ['h2', 1],
        ['h4', 1],
      ]);
      await expect(store.load('d')).rejects.toBeInstanceOf(StoreCorruptionError);
      const taken = await store.leases!.claimDue(ownerOf('h3'), {
        now: now + 2,
        dueBy: 0,
        ttlMs: 10_000,
        limit: 1,
        takeFrom: ['h1'],
      });
      expect(taken.map((c) => [c.run.runId, c.run.lease?.holder, c.previous?.holder])).toEqual([['a', 'h3', 'h1']]);
      const expired = await store.leases!.claimDue(ownerOf('h3'), {
        now: now + 60_000,
        dueBy: 0,
        ttlMs: 10_000,
        limit: 1,
      });
      expect(expired.map((c) => [c.run.runId, c.previous?.holder])).toEqual([['b', 'h2']]);
    } finally {
      await store.close();
    }
    const after = new Database(path, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(
      after
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'runs_held%' ORDER BY name")
        .all(),
    ).toEqual([{ name: 'runs_held' }]);
    after.close();
  });

  it('a read-only open refuses to convert an older file, says how, and leaves it as it was', async () => {
    const path = join(dir.path, 'state.db');
    await writeVersion4File(path);
    const before = await readFile(path);
    expect(() => sqliteStore(path, { readOnly: true })).toThrow(
      /has schema version 4, which a read-only open cannot convert\. Open it once for writing/,
    );
    expect((await readFile(path)).equals(before)).toBe(true);
  });

  it('refuses a file from a newer statewright, naming it, and leaves it alone', async () => {
    const path = join(dir.path, 'state.db');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => sqliteStore(path)).toThrow(StoreFormatError);
    expect(() => sqliteStore(path)).toThrow(
      `The store at ${path} has format version 99; this statewright reads version ${SCHEMA_VERSION}. Upgrade statewright`,
    );
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT count(*) AS n FROM sqlite_master').get()).toEqual({ n: 0 });
    after.close();
  });
});

describe('sqlite store: reading needs no write', () => {
  it('opening a current file and reading it leaves the file byte for byte as it was; a read-only store refuses commits', async () => {
    const dir = await tempDir('sqlite-read');
    try {
      const path = join(dir.path, 'state.db');
      const writer = sqliteStore(path);
      await seed(writer, 'a', 3);
      await writer.close();
      const before = await readFile(path);
      for (const options of [{}, { readOnly: true }]) {
        const store = sqliteStore(path, options);
        expect(await store.load('a')).toEqual(row('a', 3));
        expect(await store.history('a')).toHaveLength(3);
        expect(await store.checkIntegrity!()).toEqual([]);
        if (options.readOnly) await expect(store.commit([step('a', 4)])).rejects.toBeInstanceOf(StoreReadOnlyError);
        await store.close();
        expect((await readFile(path)).equals(before)).toBe(true);
      }
      expect(() => sqliteStore(join(dir.path, 'none.db'), { readOnly: true })).toThrow(
        /Cannot open the sqlite store at .*none\.db: .*Reading needs an existing store file/,
      );
    } finally {
      await dir.remove();
    }
  });
});

describe("sqlite store: the log carries each run's current row", () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('sqlite-log');
  });
  afterEach(() => dir.remove());

  it('reads a run as its newest event left it while its runs row lags, after a reopen too, and keeps one snapshot per run', async () => {
    const path = join(dir.path, 'state.db');
    let store = sqliteStore(path);
    try {
      await seed(store, 'r1', 100);
      await seed(store, 'r2', 5);
      for (const reopen of [false, true]) {
        if (reopen) {
          await store.close();
          store = sqliteStore(path);
        }
        expect(await store.load('r1')).toEqual(row('r1', 100));
        expect((await store.list({ state: 's100' })).map((r) => r.runId)).toEqual(['r1']);
        expect((await store.list({ state: 's5' })).map((r) => r.runId)).toEqual(['r2']);
        expect((await store.history('r1')).map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      }
      await store.commit([step('r1', 101)]);
      expect(await store.load('r1')).toEqual(row('r1', 101));
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    const lag = db.prepare("SELECT seq FROM runs WHERE run_id = 'r1'").get() as { seq: number };
    expect(lag.seq).toBeGreaterThan(101 - 32);
    expect(lag.seq).toBeLessThan(101);
    expect(db.prepare('SELECT run_id, seq FROM events WHERE row_snapshot IS NOT NULL ORDER BY run_id').all()).toEqual([
      { run_id: 'r1', seq: 101 },
      { run_id: 'r2', seq: 5 },
    ]);
    db.close();
  });

  it('brings the runs row up to date when the status changes, so listing by status needs no log', async () => {
    const path = join(dir.path, 'state.db');
    const store = sqliteStore(path);
    try {
      await seed(store, 'r1', 3);
      await store.commit([
        { run: row('r1', 4, { status: 'done', state: 'success' }), event: record('r1', 4), expectedSeq: 3 },
      ]);
      expect((await store.list({ status: 'done' })).map((r) => [r.runId, r.state, r.seq])).toEqual([
        ['r1', 'success', 4],
      ]);
      expect(await store.list({ status: 'active' })).toEqual([]);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT status, state, seq FROM runs WHERE run_id = 'r1'").get()).toEqual({
      status: 'done',
      state: 'success',
      seq: 4,
    });
    db.close();
  });
  it('claims a released run with its next step by writing the lease and owner into its lagging runs row, leaving the checkpoint (so the row keeps its size)', async () => {
    const path = join(dir.path, 'state.db');
    let store = sqliteStore(path);
    const now = Date.UTC(2026, 10, 24);
    try {
      const first = leaseOf('h1', 1, now);
      await store.commit([leasedCreate('r1', 'h1', { lease: first })]);
      for (let seq = 1; seq <= 5; seq++) await store.commit([fencedStep('r1', seq, first)]);
      await store.leases!.release('h1', [{ runId: 'r1', epoch: 1, wakeAt: 77 }], { now: now + 100, handedOver: false });
      await store.commit([fencedStep('r1', 6, { ...leaseOf('h2', 2, now + 200), claims: 1 }, { wakeAt: 99 })]);
      for (const reopen of [false, true]) {
        if (reopen) {
          await store.close();
          store = sqliteStore(path);
        }
        expect(await store.load('r1')).toMatchObject({
          ...row('r1', 6, { owner: ownerOf('h2') }),
          lease: { holder: 'h2', state: 'held', epoch: 2 },
          wakeAt: 99,
        });
        expect((await store.history('r1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await store.checkIntegrity!()).toEqual([]);
      }
      await store.commit([fencedStep('r1', 7, leaseOf('h2', 2, now + 300))]);
      expect((await store.load('r1'))!.seq).toBe(7);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    // The checkpoint of step 1 (the first event the chain starts from), not of step 6.
    expect(
      db
        .prepare(
          "SELECT seq, state, lease_holder, lease_epoch, json_extract(owner, '$.id') AS owner FROM runs WHERE run_id = 'r1'",
        )
        .get(),
    ).toEqual({
      seq: 1,
      state: 's1',
      lease_holder: 'h2',
      lease_epoch: 2,
      owner: 'h2',
    });
    db.close();
  });
});

describe('sqlite store: two connections to one file', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('sqlite-shared');
  });
  afterEach(() => dir.remove());

  it('keeps one history in seq order when two writers take turns on a run, and refuses the stale one', async () => {
    const path = join(dir.path, 'state.db');
    const a = sqliteStore(path);
    const b = sqliteStore(path);
    try {
      await a.commit([create('r1')]);
      await a.commit([step('r1', 1)]);
      await b.commit([step('r1', 2)]);
      await a.commit([step('r1', 3), step('r1', 4)]);
      await b.commit([step('r1', 5)]);
      const stale = await a.commit([step('r1', 5)]).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(stale).toBeInstanceOf(CommitConflictError);
      await a.commit([step('r1', 6)]);
      for (const store of [a, b]) {
        expect((await store.history('r1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(await store.load('r1')).toEqual(row('r1', 6));
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('commits after a read from the end it read, and refuses a stale read once the other writer moved the run on', async () => {
    const path = join(dir.path, 'state.db');
    const a = sqliteStore(path);
    const b = sqliteStore(path);
    try {
      await b.commit([create('r1'), step('r1', 1), create('r2'), step('r2', 1)]);
      // Read by a (which remembers where each run ends), then moved on by b.
      expect(await a.load('r1')).toEqual(row('r1', 1));
      expect(await a.load('r2')).toEqual(row('r2', 1));
      await b.commit([step('r1', 2)]);
      const stale = await a.commit([step('r1', 2)]).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(stale).toBeInstanceOf(CommitConflictError);
      // Where the read is still the end, a's step extends it; from the newer end too, once known.
      await a.commit([step('r2', 2)]);
      await a.commit([step('r1', 3)]);
      for (const store of [a, b]) {
        expect((await store.history('r1')).map((e) => e.seq)).toEqual([1, 2, 3]);
        expect((await store.history('r2')).map((e) => e.seq)).toEqual([1, 2]);
        expect(await store.load('r1')).toEqual(row('r1', 3));
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('sqlite store: a run id that is not well-formed Unicode (stored before the runtime checked ids)', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('sqlite-ids');
  });
  afterEach(() => dir.remove());

  it('holds the lone surrogate as its own bytes, which better-sqlite3 reads back otherwise: what sqlite-text.ts undoes', () => {
    const db = new Database(':memory:');
    try {
      for (const text of ['plain', 'ü😀', 'a\ud800b', '\udc00', '\ud83d\ude00\ud800', '\ud800\udc00']) {
        const bytes = db.prepare('SELECT hex(?)').pluck().get(text) as string;
        expect(toWtf8(text).toString('hex').toUpperCase(), JSON.stringify(text)).toBe(bytes);
        expect(asRead(text), JSON.stringify(text)).toBe(db.prepare('SELECT ?').pluck().get(text));
        expect(fromWtf8(Buffer.from(bytes, 'hex')), JSON.stringify(text)).toBe(text);
        expect(asWritten(asRead(text), bytes)).toBe(text);
      }
      // 'a\ud800' reads back as three U+FFFD: another string, of another length, so its checksums would not match.
      expect(asRead('a\ud800')).toBe('a\ufffd\ufffd\ufffd');
      // Bytes no string gives (overlong, CESU-8 pairs, cut short) are damage, left as read.
      for (const hex of ['C0AF', 'EDA0BDEDB880', 'E282', 'F4908080'])
        expect(fromWtf8(Buffer.from(hex, 'hex')), hex).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('reads, lists, claims, renews, releases and commits such a run by the id it was written with, after a reopen too', async () => {
    const path = join(dir.path, 'state.db');
    const id = 'run\ud800';
    let store = sqliteStore(path);
    try {
      const lease = leaseOf('gone', 1, 1000, 2000);
      await store.commit([leasedCreate(id, 'gone', { lease }), leasedCreate('plain', 'gone', { lease })]);
      await store.commit([
        fencedStep(id, 1, lease, { event: record(id, 1, { idempotencyKey: 'k1' }), result: { n: 1 } }),
      ]);
      await store.close();
      // What the file holds: the surrogate as ED A0 80, not U+FFFD's EF BF BD.
      const raw = new Database(path, { readonly: true });
      expect(raw.prepare("SELECT hex(run_id) FROM runs WHERE run_id <> 'plain'").pluck().all()).toEqual([
        '72756EEDA080',
      ]);
      raw.close();

      store = sqliteStore(path);
      expect(await store.load(id)).toMatchObject({ runId: id, seq: 1, state: 's1' });
      expect(await store.load(asRead(id))).toBeUndefined();
      expect((await store.list()).map((r) => r.runId).sort()).toEqual(['plain', id]);
      expect((await store.history(id)).map((e) => [e.runId, e.seq])).toEqual([[id, 1]]);
      expect(await store.findIdempotent(id, 'k1')).toEqual({ seq: 1, result: { n: 1 } });
      expect(await store.checkIntegrity!()).toEqual([]);

      // The sweep finds it by its lease that ran out: its claim reads its row (this was a TypeError).
      const owner = ownerOf('next');
      const claims = await store.leases!.claimDue(owner, { now: 5000, dueBy: 5000, ttlMs: 1000, limit: 10 });
      expect(claims.map((c) => [c.run.runId, c.run.lease?.epoch]).sort()).toEqual([
        ['plain', 2],
        [id, 2],
      ]);
      expect(await store.leases!.renew('next', [{ runId: id, epoch: 2 }], { now: 5500, ttlMs: 1000 })).toEqual([]);
      const next = leaseOf('next', 2, 5600, 6500);
      await store.commit([{ ...fencedStep(id, 2, next), run: row(id, 2, { owner }) }]);
      await store.leases!.release('next', [{ runId: id, epoch: 2, wakeAt: null }], { now: 5700, handedOver: false });
      expect((await store.load(id))?.lease).toMatchObject({ holder: 'next', state: 'released', epoch: 2 });
      expect((await store.history(id)).map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      await store.close();
    }
  });
});
