/**
 * Leases on Postgres where Postgres itself is the point: two stores (two connection pools, as two
 * hosts have) racing the sweep, a fenced commit after another pool's claim, the sweep read through
 * its indexes among many runs, and each commit and lease call one round trip.
 */
import pg from 'pg';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { claimDueStatement } from '../../src/stores/postgres/statements.js';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import {
  LeaseLostError,
  type Commit,
  type CommitLease,
  type OwnerInfo,
  type Store,
  type StoredRun,
} from '../../src/stores/store.js';
import { commitCuttingProxy } from './commit-cutting-proxy.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from './test-postgres.js';

const TTL = 10_000;
const owner = (id: string): OwnerInfo => ({ id, pid: 1, pidStart: '1', host: 'test' });
const row = (runId: string, seq: number, extra: Partial<StoredRun> = {}): StoredRun => ({
  runId,
  machine: 'm',
  version: 1,
  status: 'active',
  state: 's',
  snapshot: { seq },
  input: null,
  seq,
  owner: undefined,
  createdAt: 1,
  updatedAt: 1 + seq,
  ...extra,
});
const lease = (holder: string, epoch: number, now: number): CommitLease => ({
  holder,
  epoch,
  expiresAt: now + TTL,
  now,
});
const create = (runId: string, extra: Partial<Commit> = {}): Commit => ({
  run: row(runId, 0),
  expectedSeq: undefined,
  ...extra,
});
const step = (runId: string, seq: number, extra: Partial<Commit> = {}): Commit => ({
  run: row(runId, seq),
  event: { runId, seq, event: { type: 'E' }, at: seq, before: 's', after: 's' },
  expectedSeq: seq - 1,
  ...extra,
});

/** Two stores (two pools) on one fresh schema, closed and dropped when the test ends. */
async function twoHosts(options: { poolSize?: number } = {}): Promise<[Store, Store, string]> {
  const schema = freshSchema();
  const a = await postgresStore({ connectionString: url, schema, ...options });
  const b = await postgresStore({ connectionString: url, schema, ...options });
  onTestFinished(async () => {
    await Promise.all([a.close(), b.close()]);
    await dropSchema(schema);
  });
  return [a, b, schema];
}

describe.skipIf(skipPostgres)('postgres store: leases across pools', () => {
  beforeAll(requirePostgres);

  it('refuses a commit fenced by a lease another pool has claimed since, applying nothing of its batch', async () => {
    const [a, b] = await twoHosts();
    const now = Date.now();
    await a.commit([create('x', { lease: lease('a', 1, now) }), create('y', { lease: lease('a', 1, now) })]);
    expect((await b.load('x'))!.lease).toEqual({
      holder: 'a',
      state: 'held',
      epoch: 1,
      expiresAt: now + TTL,
      renewedAt: now,
    });

    // b finds a dead (a is in takeFrom) and takes x only.
    const claims = await b.leases!.claimRun('x', owner('b'), { now, ttlMs: TTL, takeFrom: ['a'] });
    expect(claims!.previous).toMatchObject({ holder: 'a', state: 'held', epoch: 1 });
    expect(claims!.run.lease).toMatchObject({ holder: 'b', state: 'held', epoch: 2 });

    // a's late batch touches x (lost) and y (still a's): the whole batch is refused.
    const late = await a
      .commit([step('y', 1, { lease: lease('a', 1, now) }), step('x', 1, { lease: lease('a', 1, now) })])
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(LeaseLostError);
    expect((late as LeaseLostError).lost).toEqual([
      {
        runId: 'x',
        holder: 'a',
        epoch: 1,
        stored: { holder: 'b', state: 'held', epoch: 2, expiresAt: now + TTL, renewedAt: now },
      },
    ]);
    expect((late as Error).message).toContain(`run 'x' is held by 'b' at epoch 2, not held by 'a' at epoch 1`);
    // Alone, its step (the one-statement path) is refused the same way.
    const alone = await a.commit([step('x', 1, { lease: lease('a', 1, now) })]).catch((e: unknown) => e);
    expect(alone).toBeInstanceOf(LeaseLostError);
    expect((alone as LeaseLostError).lost).toEqual((late as LeaseLostError).lost);
    for (const runId of ['x', 'y']) {
      expect((await b.load(runId))!.seq).toBe(0);
      expect(await b.history(runId)).toEqual([]);
    }

    // The holder's commits go through: while more than two thirds of its lease are left, the
    // lease stays as it is; past that, the commit renews it. a's own run y still commits for a.
    await b.commit([step('x', 1, { lease: lease('b', 2, now + 1000) })]);
    expect((await a.load('x'))!.lease).toMatchObject({ expiresAt: now + TTL, renewedAt: now });
    const later = now + 4000;
    await b.commit([step('x', 2, { lease: lease('b', 2, later), wakeAt: 5000 })]);
    await a.commit([step('y', 1, { lease: lease('a', 1, later) })]);
    expect(await a.load('x')).toMatchObject({
      seq: 2,
      wakeAt: 5000,
      lease: { holder: 'b', epoch: 2, expiresAt: later + TTL, renewedAt: later },
    });
    expect(await a.load('y')).toMatchObject({ seq: 1, lease: { holder: 'a', epoch: 1, expiresAt: later + TTL } });
  });

  it('gives each of 200 due runs to exactly one of two pools sweeping at once', async () => {
    const [a, b] = await twoHosts();
    const now = Date.now();
    // 100 held by a dead host whose leases ran out, 100 asleep with a deadline now due.
    const ids = Array.from({ length: 200 }, (_, i) => `run-${String(i).padStart(3, '0')}`);
    await a.commit(
      ids
        .slice(0, 100)
        .map((id) => create(id, { lease: { holder: 'dead', epoch: 1, expiresAt: now - 1, now: now - TTL } })),
    );
    await a.commit(ids.slice(100).map((id) => create(id, { wakeAt: now - 1 })));

    const claimed = new Map<string, string[]>();
    const sweep = async (store: Store, host: string) => {
      const claims = await store.leases!.claimDue(owner(host), { now, dueBy: now, ttlMs: TTL, limit: 7 });
      for (const c of claims) claimed.set(c.run.runId, [...(claimed.get(c.run.runId) ?? []), host]);
      return claims.length;
    };
    // Rounds of six sweeps at once, three per pool, until a round finds nothing.
    while (
      (
        await Promise.all([sweep(a, 'a'), sweep(b, 'b'), sweep(a, 'a'), sweep(b, 'b'), sweep(a, 'a'), sweep(b, 'b')])
      ).some((n) => n > 0)
    );

    expect([...claimed.keys()].sort()).toEqual(ids);
    expect([...claimed.entries()].filter(([, hosts]) => hosts.length > 1)).toEqual([]);
    for (const id of ids) {
      const stored = (await a.load(id))!;
      expect(stored.lease).toMatchObject({
        holder: claimed.get(id)![0],
        state: 'held',
        epoch: id < 'run-100' ? 2 : 1,
        expiresAt: now + TTL,
      });
      expect(stored.owner).toEqual(owner(claimed.get(id)![0]!));
    }
  });

  it('sweeps through its partial indexes, not the table, among 200,000 runs', async () => {
    const [a, , schema] = await twoHosts();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    onTestFinished(() => admin.end());
    const now = Date.now();
    // 150k finished runs, 49,990 asleep until tomorrow, 10 asleep and due now.
    await admin.query(
      `INSERT INTO ${schema}.runs (run_id, machine, version, status, state, seq, snapshot, input, created_at, updated_at, wake_at, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed)
       SELECT 'r' || i, 'm', 1, CASE WHEN i < 150000 THEN 'done' ELSE 'active' END, 's', 0, '{}', 'null', i, i,
         CASE WHEN i < 150000 THEN NULL WHEN i < 199990 THEN $1::bigint + 86400000 ELSE $1::bigint - 1 END,
         'old', 'released', 1, $1::bigint - 1, $1::bigint - 1
       FROM generate_series(0, 199999) AS i`,
      [now],
    );
    await admin.query(`ANALYZE ${schema}.runs`);
    const plan = await admin.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (FORMAT JSON) ${claimDueStatement(`${schema}.runs`)}`,
      ['h', JSON.stringify(owner('h')), now, TTL, now, 100, ['gone'], ['r199990']],
    );
    const nodes = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
    expect(nodes).not.toContain('Seq Scan');
    // Every way in reads a partial index, and the candidates are then found by their key. The two
    // indexes of held runs hold the same runs (none here), so for the holder's way the planner may
    // take either, by what ANALYZE's sample said.
    const indexes = new Set([...nodes.matchAll(/"Index Name":"(\w+)"/g)].map((m) => m[1]!));
    expect(
      [...indexes].filter(
        (name) =>
          ![
            'runs_held_by_expiry',
            'runs_held_by_holder',
            'runs_asleep_by_wake',
            'runs_handed_over',
            'runs_pkey',
          ].includes(name),
      ),
    ).toEqual([]);
    for (const index of ['runs_held_by_expiry', 'runs_asleep_by_wake', 'runs_handed_over'])
      expect(indexes).toContain(index);

    const claims = await a.leases!.claimDue(owner('h'), { now, dueBy: now, ttlMs: TTL, limit: 100 });
    expect(claims.map((c) => c.run.runId).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `r${199990 + i}`));
    expect(claims[0]!.previous).toMatchObject({ holder: 'old', state: 'released', epoch: 1 });
  });

  it('commits a step or a batch, fence included, in one round trip, and each lease call in one', async () => {
    const schema = freshSchema();
    onTestFinished(() => dropSchema(schema));
    const target = new URL(url);
    const proxy = await commitCuttingProxy(
      { host: target.hostname, port: Number(target.port || 5432) },
      Number.MAX_SAFE_INTEGER,
    );
    onTestFinished(() => proxy.close());
    const through = new URL(url);
    through.port = String(proxy.port);
    // One connection, so every call below reuses the one whose backend is already known.
    const store = await postgresStore({ connectionString: through.toString(), schema, poolSize: 1 });
    onTestFinished(() => store.close());
    const now = Date.now();
    await store.commit([create('warm-up')]);

    const roundTrips = async (call: () => Promise<unknown>) => {
      const before = proxy.roundTrips;
      await call().catch(() => {});
      return proxy.roundTrips - before;
    };
    const ids = Array.from({ length: 25 }, (_, i) => `b${i}`);
    expect(await roundTrips(() => store.commit([create('one', { lease: lease('h', 1, now) })]))).toBe(1);
    expect(await roundTrips(() => store.commit([step('one', 1, { lease: lease('h', 1, now), wakeAt: now })]))).toBe(1);
    // 25 runs created and stepped twice each: 75 steps, one statement.
    expect(
      await roundTrips(() =>
        store.commit(
          ids.flatMap((id) => [
            create(id, { lease: lease('h', 1, now) }),
            step(id, 1, { lease: lease('h', 1, now) }),
            step(id, 2, { lease: lease('h', 1, now) }),
          ]),
        ),
      ),
    ).toBe(1);
    expect((await store.history('b24')).map((e) => e.seq)).toEqual([1, 2]);
    // Refused (a stale seq, a lost lease), a step writes nothing in its one statement; saying which
    // refusal it was reads the run once more. A refused batch says it in its one statement.
    expect(await roundTrips(() => store.commit([step('one', 1, { lease: lease('h', 1, now) })]))).toBe(2);
    expect(await roundTrips(() => store.commit([step('one', 2, { lease: lease('h', 9, now) })]))).toBe(2);
    expect(
      await roundTrips(() =>
        store.commit([step('one', 2, { lease: lease('h', 9, now) }), step('b0', 3, { lease: lease('h', 1, now) })]),
      ),
    ).toBe(1);
    expect((await store.load('one'))!.seq).toBe(1);
    const leases = store.leases!;
    expect(
      await roundTrips(() =>
        leases.renew(
          'h',
          ids.map((runId) => ({ runId, epoch: 1 })),
          { now, ttlMs: TTL },
        ),
      ),
    ).toBe(1);
    expect(
      await roundTrips(() =>
        leases.release(
          'h',
          ids.map((runId) => ({ runId, epoch: 1, wakeAt: now })),
          { now, handedOver: false },
        ),
      ),
    ).toBe(1);
    expect(await roundTrips(() => leases.claimDue(owner('g'), { now, dueBy: now, ttlMs: TTL, limit: 100 }))).toBe(1);
    expect(await roundTrips(() => leases.claimRun('one', owner('g'), { now: now + TTL, ttlMs: TTL }))).toBe(1);
    // 25 runs woken at once (group claims): one statement.
    expect(await roundTrips(() => leases.claimRuns!(ids, owner('g'), { now: now + TTL, ttlMs: TTL }))).toBe(1);
    expect((await store.load('b7'))!.lease).toMatchObject({ holder: 'g', epoch: 3 });
    expect(await roundTrips(() => leases.holders())).toBe(1);
    expect(await store.leases!.holders()).toEqual([{ owner: owner('g'), runs: 26 }]);
  });
});

describe.skipIf(skipPostgres)('postgres store: a schema from before leases', () => {
  beforeAll(requirePostgres);

  it('gains the lease and deadline columns when opened, keeps its runs, makes them due at once, and hosts them under leases from then on', async () => {
    const schema = freshSchema();
    onTestFinished(() => dropSchema(schema));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    onTestFinished(() => admin.end());
    // The tables as the store before leases created them, with one run and its first event.
    await admin.query(`
      CREATE SCHEMA ${schema};
      CREATE TABLE ${schema}.runs (
        run_id text PRIMARY KEY, machine text NOT NULL, version integer NOT NULL, status text NOT NULL,
        state text NOT NULL, seq integer NOT NULL, snapshot jsonb NOT NULL, input jsonb NOT NULL,
        owner jsonb, created_at bigint NOT NULL, updated_at bigint NOT NULL);
      CREATE TABLE ${schema}.events (
        run_id text NOT NULL, seq integer NOT NULL, event jsonb NOT NULL, at bigint NOT NULL,
        actor text, reason text, idempotency_key text, before_state text NOT NULL, after_state text NOT NULL,
        result jsonb, PRIMARY KEY (run_id, seq));
      INSERT INTO ${schema}.runs VALUES ('old', 'm', 1, 'active', 's', 1, '{"seq":1}', 'null', NULL, 1, 2);
      INSERT INTO ${schema}.events VALUES ('old', 1, '{"type":"E"}', 2, NULL, NULL, NULL, 's', 's', NULL);
    `);

    const store = await postgresStore({ connectionString: url, schema });
    onTestFinished(() => store.close());
    const old = (await store.load('old'))!;
    expect(old).toMatchObject({ seq: 1, snapshot: { seq: 1 } });
    expect(old.lease).toBeUndefined();
    expect(await store.history('old')).toHaveLength(1);

    // Never leased: a fenced step is refused until a host claims it. It is due at once (wake_at 0),
    // so the first sweep claims it, at epoch 1, saying it had no lease before.
    const now = Date.now();
    await expect(store.commit([step('old', 2, { lease: lease('h', 1, now) })])).rejects.toBeInstanceOf(LeaseLostError);
    const [claim, ...more] = await store.leases!.claimDue(owner('h'), { now, dueBy: 0, ttlMs: TTL, limit: 10 });
    expect(more).toEqual([]);
    expect(claim!.previous).toBeUndefined();
    expect(claim!.run).toMatchObject({ runId: 'old', wakeAt: 0, lease: { holder: 'h', state: 'held', epoch: 1 } });
    await store.commit([step('old', 2, { lease: lease('h', 1, now), wakeAt: 7 })]);
    expect(await store.load('old')).toMatchObject({ seq: 2, wakeAt: 7 });
    // A run created now has no deadline unless its commit gives one.
    await store.commit([create('new', { lease: lease('h', 1, now) })]);
    expect((await store.load('new'))!.wakeAt).toBeUndefined();

    // Opened again, the schema is current: nothing to do, the same answers.
    const again = await postgresStore({ connectionString: url, schema });
    onTestFinished(() => again.close());
    expect((await again.history('old')).map((e) => e.seq)).toEqual([1, 2]);
  });
});
