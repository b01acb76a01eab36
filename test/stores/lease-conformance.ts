/**
 * The lease conformance suite: what every store with leases (`Store.leases`: memory, SQLite,
 * Postgres) must do, through the Store interface, per the contract in src/stores/store.ts. Lease
 * times are wall-clock ms, given explicitly (`now`), so no case depends on the machine's clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  LeaseLostError,
  RunHeldError,
  type Claim,
  type Commit,
  type CommitLease,
  type OwnerInfo,
  type RunLease,
  type Store,
  type StoreLeases,
  type StoredRun,
} from '../../src/stores/store.js';
import { record, row, type OpenedStore, type StoreHarness } from './conformance.js';

/** Wall clock of the hosts (leases). */
const NOW = Date.UTC(2026, 2, 1, 12);
const TTL = 10_000;
/** The runtime's clock (deadlines), deliberately far from NOW: the two are never compared. */
const CLOCK = 5_000_000;

export const ownerOf = (id: string, pid = 100): OwnerInfo => ({
  id,
  pid,
  pidStart: `${pid}-start`,
  host: 'lease-host',
});

export const leaseOf = (holder: string, epoch = 1, now = NOW, expiresAt = now + TTL): CommitLease => ({
  holder,
  epoch,
  expiresAt,
  now,
});

/** Creates `runId` held by `holder` (whose owner it records) under `lease`. */
export function leasedCreate(
  runId: string,
  holder: string,
  options: { lease?: CommitLease; wakeAt?: number | null; status?: string } = {},
): Commit {
  const { lease = leaseOf(holder), wakeAt, status } = options;
  return {
    run: row(runId, 0, { owner: ownerOf(holder), ...(status && { status }) }),
    expectedSeq: undefined,
    lease,
    ...(wakeAt !== undefined && { wakeAt }),
  };
}

/** Step `seq` of `runId`, written under `lease`. */
export const fencedStep = (runId: string, seq: number, lease: CommitLease, extra: Partial<Commit> = {}): Commit => ({
  run: row(runId, seq, { owner: ownerOf(lease.holder) }),
  event: record(runId, seq),
  expectedSeq: seq - 1,
  lease,
  ...extra,
});

const held = (holder: string, epoch: number, renewedAt: number, expiresAt = renewedAt + TTL): RunLease => ({
  holder,
  state: 'held',
  epoch,
  expiresAt,
  renewedAt,
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, it resolved');
}

function leasesOf(store: Store): StoreLeases {
  if (!store.leases)
    throw new Error(
      `the ${store.kind} store has no leases (Store.leases): it must implement StoreLeases from src/stores/store.ts`,
    );
  return store.leases;
}

const byRun = <T extends { run: StoredRun }>(claims: readonly T[]) =>
  [...claims].sort((a, b) => a.run.runId.localeCompare(b.run.runId));

export function leaseConformance(harness: StoreHarness): void {
  const opened: OpenedStore[] = [];
  const open = async () => {
    const o = await harness.fresh();
    opened.push(o);
    return o;
  };
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      expect(o.warnings(), 'corruption reports in normal operation').toEqual([]);
      await o.dispose();
    }
  });

  describe(`${harness.name} store: leases and the timer index`, () => {
    it('stores the lease a run is created under and its next deadline, and reads both back on load and list', async () => {
      const o = await open();
      await o.store.commit([
        leasedCreate('a', 'h1', { wakeAt: CLOCK + 10 }),
        { run: row('b', 0), expectedSeq: undefined },
      ]);
      const a = { ...row('a', 0, { owner: ownerOf('h1') }), lease: held('h1', 1, NOW), wakeAt: CLOCK + 10 };
      expect(await o.store.load('a')).toEqual(a);
      // A run created without a lease or a deadline has neither: the keys are absent, not undefined.
      expect(await o.store.load('b')).toStrictEqual(row('b', 0));
      expect((await o.store.list()).sort((x, y) => x.runId.localeCompare(y.runId))).toEqual([a, row('b', 0)]);
      if (harness.durable) expect(await (await o.reopen()).load('a')).toEqual(a);
    });

    it('takes a batch that creates a run and steps it under the lease it was created with', async () => {
      const o = await open();
      const lease = leaseOf('h1');
      await o.store.commit([leasedCreate('a', 'h1', { lease }), fencedStep('a', 1, lease), fencedStep('a', 2, lease)]);
      expect((await o.store.load('a'))!.seq).toBe(2);
      expect((await o.store.history('a')).map((e) => e.seq)).toEqual([1, 2]);
      expect((await o.store.load('a'))!.lease).toMatchObject({ holder: 'h1', state: 'held', epoch: 1 });
    });

    it('keeps the deadline each commit gives, and forgets it when a commit gives null or none', async () => {
      const o = await open();
      const lease = leaseOf('h1');
      await o.store.commit([leasedCreate('a', 'h1', { lease })]);
      const wakeAt = async () => (await o.store.load('a'))!.wakeAt;
      expect(await wakeAt()).toBeUndefined();
      await o.store.commit([fencedStep('a', 1, lease, { wakeAt: CLOCK + 1 })]);
      expect(await wakeAt()).toBe(CLOCK + 1);
      await o.store.commit([fencedStep('a', 2, lease, { wakeAt: null })]);
      expect(await wakeAt()).toBeUndefined();
      await o.store.commit([fencedStep('a', 3, lease, { wakeAt: 0 })]);
      expect(await wakeAt()).toBe(0);
      await o.store.commit([fencedStep('a', 4, lease)]);
      expect(await o.store.load('a')).not.toHaveProperty('wakeAt');
      // Unfenced commits (one host, no lease) keep the deadline too.
      await o.store.commit([
        { run: row('a', 5, { owner: ownerOf('h1') }), event: record('a', 5), expectedSeq: 4, wakeAt: CLOCK + 5 },
      ]);
      expect(await wakeAt()).toBe(CLOCK + 5);
      if (harness.durable) expect((await (await o.reopen()).load('a'))!.wakeAt).toBe(CLOCK + 5);
    });

    it('renews the lease with a fenced commit once a third of its time has passed, keeping its epoch', async () => {
      const o = await open();
      await o.store.commit([leasedCreate('a', 'h1')]);
      await o.store.commit([fencedStep('a', 1, leaseOf('h1', 1, NOW + 4000))]);
      expect((await o.store.load('a'))!.lease).toEqual(held('h1', 1, NOW + 4000));
      // Sooner, a store may renew or not (CommitLease), but never shortens the lease.
      await o.store.commit([fencedStep('a', 2, leaseOf('h1', 1, NOW + 5000))]);
      expect((await o.store.load('a'))!.lease!.expiresAt).toBeGreaterThanOrEqual(NOW + 4000 + TTL);
    });

    it('refuses a commit at a stale epoch, by another holder or after release with LeaseLostError: the whole batch, nothing applied', async () => {
      const o = await open();
      const { store } = o;
      const leases = leasesOf(store);
      await store.commit([leasedCreate('a', 'h1'), leasedCreate('b', 'h1')]);
      // A second process of host h1 claims `a` again: the epoch moves to 2, the first one's writes are stale.
      await leases.claimRun('a', ownerOf('h1', 200), { now: NOW + 1000, ttlMs: TTL });
      const stored = held('h1', 2, NOW + 1000);

      const stale = await rejection(
        store.commit([fencedStep('b', 1, leaseOf('h1')), fencedStep('a', 1, leaseOf('h1'))]),
      );
      expect(stale).toBeInstanceOf(LeaseLostError);
      expect((stale as LeaseLostError).lost).toEqual([{ runId: 'a', holder: 'h1', epoch: 1, stored }]);
      expect((stale as Error).message).toContain("run 'a' is held by 'h1' at epoch 2, not held by 'h1' at epoch 1");

      const other = await rejection(store.commit([fencedStep('a', 1, leaseOf('h2', 2))]));
      expect(other).toBeInstanceOf(LeaseLostError);
      expect((other as LeaseLostError).lost).toEqual([{ runId: 'a', holder: 'h2', epoch: 2, stored }]);

      // Nothing of the refused batches was applied: neither `a` nor the good step of `b`.
      for (const runId of ['a', 'b']) {
        expect((await store.load(runId))!.seq).toBe(0);
        expect(await store.history(runId)).toEqual([]);
      }
      expect((await store.load('b'))!.lease).toEqual(held('h1', 1, NOW));

      // Released, a run takes no fenced commit from its last holder either.
      await leases.release('h1', [{ runId: 'a', epoch: 2, wakeAt: null }], { now: NOW + 2000, handedOver: false });
      const released = await rejection(store.commit([fencedStep('a', 1, leaseOf('h1', 2, NOW + 3000))]));
      expect(released).toBeInstanceOf(LeaseLostError);
      expect((released as LeaseLostError).lost[0]!.stored).toMatchObject({ holder: 'h1', state: 'released', epoch: 2 });

      // The holder at the current epoch commits, and its lease is renewed.
      await store.commit([fencedStep('b', 1, leaseOf('h1', 1, NOW + 5000))]);
      expect(await store.load('b')).toEqual({
        ...row('b', 1, { owner: ownerOf('h1') }),
        lease: held('h1', 1, NOW + 5000),
      });
    });

    it('takes a released run with the commit that claims it (CommitLease.claims), and refuses that commit with LeaseLostError, nothing applied, once the run moved on after it was read', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      const ids = ['a', 'b', 'c', 'd', 'done', 'over'];
      await store.commit([
        ...ids.filter((id) => id !== 'done').map((id) => leasedCreate(id, 'h1')),
        leasedCreate('done', 'h1', { status: 'done' }),
      ]);
      await leases.release(
        'h1',
        ids.filter((id) => id !== 'over').map((runId) => ({ runId, epoch: 1, wakeAt: CLOCK + 1 })),
        { now: NOW + 100, handedOver: false },
      );
      await leases.release('h1', [{ runId: 'over', epoch: 1, wakeAt: null }], { now: NOW + 100, handedOver: true });
      /** The lease of h2, which read each run released at epoch 1. */
      const claiming = (now = NOW + 1000): CommitLease => ({ ...leaseOf('h2', 2, now), claims: 1 });

      // Two steps of one batch under the claim: the run is h2's at epoch 2, renewed, its deadline the last step's.
      const lease = claiming();
      await store.commit([
        fencedStep('a', 1, lease, { wakeAt: CLOCK + 5 }),
        fencedStep('a', 2, lease, { wakeAt: CLOCK + 9 }),
      ]);
      expect(await store.load('a')).toEqual({
        ...row('a', 2, { owner: ownerOf('h2') }),
        lease: held('h2', 2, NOW + 1000),
        wakeAt: CLOCK + 9,
      });
      // From then on it takes h2's steps under the lease it holds, and no second claim from the same read.
      await store.commit([fencedStep('a', 3, leaseOf('h2', 2, NOW + 2000))]);
      expect((await store.load('a'))!.seq).toBe(3);
      const again = await rejection(store.commit([fencedStep('a', 4, { ...leaseOf('h3', 2, NOW + 2000), claims: 1 })]));
      expect((again as LeaseLostError).lost).toMatchObject([
        { runId: 'a', holder: 'h3', epoch: 2, stored: { holder: 'h2', state: 'held', epoch: 2 } },
      ]);

      // Claimed by another host after the read: refused, the whole batch (the good step of `a` too).
      await leases.claimRun('b', ownerOf('h3'), { now: NOW + 500, ttlMs: TTL });
      const taken = await rejection(
        store.commit([fencedStep('a', 4, leaseOf('h2', 2, NOW + 2000)), fencedStep('b', 1, claiming())]),
      );
      expect(taken).toBeInstanceOf(LeaseLostError);
      expect((taken as LeaseLostError).lost).toEqual([
        { runId: 'b', holder: 'h2', epoch: 2, stored: held('h3', 2, NOW + 500) },
      ]);
      expect((await store.load('a'))!.seq).toBe(3);

      // Claimed and let go again after the read (released, but at epoch 2), ended, or handed over: refused.
      await leases.claimRun('c', ownerOf('h3'), { now: NOW + 500, ttlMs: TTL });
      await leases.release('h3', [{ runId: 'c', epoch: 2, wakeAt: null }], { now: NOW + 600, handedOver: false });
      for (const [runId, stored] of [
        ['c', { holder: 'h3', state: 'released', epoch: 2 }],
        ['done', { state: 'released', epoch: 1 }],
        ['over', { state: 'handedOver', epoch: 1 }],
      ] as const) {
        const refused = await rejection(store.commit([fencedStep(runId, 1, claiming())]));
        expect(refused, runId).toBeInstanceOf(LeaseLostError);
        expect((refused as LeaseLostError).lost, runId).toMatchObject([{ runId, holder: 'h2', epoch: 2, stored }]);
      }
      for (const runId of ['b', 'c', 'done', 'over']) {
        expect((await store.load(runId))!.seq, runId).toBe(0);
        expect(await store.history(runId), runId).toEqual([]);
      }

      // Claimed by the writer itself after its read (its own sweep): written under that lease.
      await leases.claimRun('d', ownerOf('h2'), { now: NOW + 500, ttlMs: TTL });
      await store.commit([fencedStep('d', 1, claiming())]);
      expect(await store.load('d')).toMatchObject({ seq: 1, lease: { holder: 'h2', state: 'held', epoch: 2 } });
      expect(await store.history('d')).toEqual([record('d', 1)]);
    });

    it('stores the run a claiming step leaves, with the lease it takes: a step of a run with a history, and a step that ends its run', async () => {
      const o = await open();
      const { store } = o;
      const leases = leasesOf(store);
      await store.commit([leasedCreate('busy', 'h1'), leasedCreate('ends', 'h1')]);
      await store.commit([1, 2, 3].map((seq) => fencedStep('busy', seq, leaseOf('h1'))));
      await store.commit([fencedStep('ends', 1, leaseOf('h1'))]);
      await leases.release(
        'h1',
        ['busy', 'ends'].map((runId) => ({ runId, epoch: 1, wakeAt: CLOCK + 1 })),
        { now: NOW + 100, handedOver: false },
      );

      const claiming: CommitLease = { ...leaseOf('h2', 2, NOW + 1000), claims: 1 };
      await store.commit([fencedStep('busy', 4, claiming, { wakeAt: CLOCK + 7 })]);
      const ended = row('ends', 2, { owner: ownerOf('h2'), status: 'done', state: 'finished' });
      await store.commit([{ ...fencedStep('ends', 2, claiming), run: ended, wakeAt: null }]);

      const busy = { ...row('busy', 4, { owner: ownerOf('h2') }), lease: held('h2', 2, NOW + 1000), wakeAt: CLOCK + 7 };
      const done = { ...ended, lease: held('h2', 2, NOW + 1000) };
      const check = async (read: Store) => {
        expect(await read.load('busy')).toEqual(busy);
        expect(await read.load('ends')).toEqual(done);
        expect(await read.history('busy')).toEqual([1, 2, 3, 4].map((seq) => record('busy', seq)));
        expect(await read.history('ends')).toEqual([record('ends', 1), record('ends', 2)]);
        expect((await read.list({ status: 'done' })).map((run) => run.runId)).toEqual(['ends']);
      };
      await check(store);
      if (harness.durable) await check(await o.reopen());
    });

    it('renews in one call every lease the holder still holds at its epoch, and resolves with the ones it no longer holds', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      await store.commit([
        leasedCreate('a', 'h1'),
        leasedCreate('b', 'h1'),
        leasedCreate('c', 'h1'),
        leasedCreate('d', 'h2'),
      ]);
      // `c` ran out and h2 took it over.
      await leases.claimRun('c', ownerOf('h2'), { now: NOW + TTL, ttlMs: TTL });
      const lost = await leases.renew(
        'h1',
        ['a', 'b', 'c', 'd', 'missing'].map((runId) => ({ runId, epoch: 1 })),
        { now: NOW + 3000, ttlMs: TTL },
      );
      expect([...lost].sort()).toEqual(['c', 'd', 'missing']);
      for (const runId of ['a', 'b']) expect((await store.load(runId))!.lease).toEqual(held('h1', 1, NOW + 3000));
      expect((await store.load('c'))!.lease).toEqual(held('h2', 2, NOW + TTL));
      expect((await store.load('d'))!.lease).toEqual(held('h2', 1, NOW));

      // At an epoch it does not hold, nothing is renewed.
      expect(await leases.renew('h1', [{ runId: 'a', epoch: 5 }], { now: NOW + 6000, ttlMs: TTL })).toEqual(['a']);
      expect((await store.load('a'))!.lease).toEqual(held('h1', 1, NOW + 3000));
      expect(await leases.renew('h1', [], { now: NOW + 6000, ttlMs: TTL })).toEqual([]);
    });

    it('releases a lease, storing its state and the next deadline, and leaves leases of other holders or epochs alone', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      await store.commit([
        leasedCreate('a', 'h1'),
        leasedCreate('b', 'h1', { wakeAt: CLOCK + 1 }),
        leasedCreate('c', 'h2', { wakeAt: CLOCK + 2 }),
        leasedCreate('d', 'h1'),
      ]);
      await leases.release('h1', [{ runId: 'a', epoch: 1, wakeAt: CLOCK + 100 }], {
        now: NOW + 500,
        handedOver: false,
      });
      await leases.release(
        'h1',
        [
          { runId: 'b', epoch: 1, wakeAt: null },
          { runId: 'c', epoch: 1, wakeAt: CLOCK + 300 },
          { runId: 'd', epoch: 2, wakeAt: CLOCK + 400 },
        ],
        { now: NOW + 600, handedOver: true },
      );
      const a = (await store.load('a'))!;
      expect(a.lease).toMatchObject({ holder: 'h1', state: 'released', epoch: 1 });
      expect(a.wakeAt).toBe(CLOCK + 100);
      const b = (await store.load('b'))!;
      expect(b.lease).toMatchObject({ holder: 'h1', state: 'handedOver', epoch: 1 });
      expect(b).not.toHaveProperty('wakeAt');
      // h2's lease, and h1's lease at another epoch, are as they were.
      expect(await store.load('c')).toMatchObject({ lease: held('h2', 1, NOW), wakeAt: CLOCK + 2 });
      expect((await store.load('d'))!.lease).toEqual(held('h1', 1, NOW));
      expect(await store.load('d')).not.toHaveProperty('wakeAt');
    });

    it('claimDue takes expired leases, runs of dead holders, due sleeping runs and handed-over runs, and no other', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      const sweepAt = NOW + TTL;
      await store.commit([
        leasedCreate('expired', 'h1'),
        leasedCreate('live', 'h3', { lease: leaseOf('h3', 1, NOW, NOW + 3 * TTL) }),
        leasedCreate('of-dead-holder', 'gone', { lease: leaseOf('gone', 1, NOW, NOW + 3 * TTL) }),
        leasedCreate('due', 'h1', { lease: leaseOf('h1', 4) }),
        leasedCreate('not-yet-due', 'h1'),
        leasedCreate('asleep', 'h1'),
        leasedCreate('handed-over', 'h1'),
        leasedCreate('handed-over-later', 'h1'),
        leasedCreate('done', 'h1', { status: 'done' }),
        { run: row('never-leased', 0), expectedSeq: undefined },
        { run: row('never-leased-due', 0), expectedSeq: undefined, wakeAt: CLOCK + 1000 },
      ]);
      await leases.release(
        'h1',
        [
          { runId: 'due', epoch: 4, wakeAt: CLOCK + 1000 },
          { runId: 'not-yet-due', epoch: 1, wakeAt: CLOCK + 1001 },
          { runId: 'asleep', epoch: 1, wakeAt: null },
        ],
        { now: NOW + 10, handedOver: false },
      );
      await leases.release(
        'h1',
        [
          { runId: 'handed-over', epoch: 1, wakeAt: null },
          { runId: 'handed-over-later', epoch: 1, wakeAt: CLOCK + 99_999 },
        ],
        { now: NOW + 20, handedOver: true },
      );
      const before = new Map((await store.list()).map((run) => [run.runId, run]));
      const sweeper = ownerOf('h9');
      const claims = await leases.claimDue(sweeper, {
        now: sweepAt,
        dueBy: CLOCK + 1000,
        ttlMs: TTL,
        limit: 100,
        takeFrom: ['gone'],
      });

      expect(claims.map((c) => c.run.runId).sort()).toEqual([
        'due',
        'expired',
        'handed-over',
        'handed-over-later',
        'never-leased-due',
        'of-dead-holder',
      ]);
      for (const { run, previous, previousOwner } of claims) {
        const was = before.get(run.runId)!;
        expect(previous, run.runId).toEqual(was.lease);
        // Optional in the contract (Claim.previousOwner); when given, the owner before the claim.
        if (previousOwner !== undefined) expect(previousOwner, run.runId).toEqual(was.owner);
        expect(run, run.runId).toEqual({
          ...was,
          owner: sweeper,
          lease: held('h9', (was.lease?.epoch ?? 0) + 1, sweepAt),
        });
        expect(await store.load(run.runId), run.runId).toEqual(run);
      }
      expect(byRun(claims).map((c) => [c.run.runId, c.run.lease!.epoch])).toEqual([
        ['due', 5],
        ['expired', 2],
        ['handed-over', 2],
        ['handed-over-later', 2],
        ['never-leased-due', 1],
        ['of-dead-holder', 2],
      ]);
      for (const runId of ['live', 'not-yet-due', 'asleep', 'done', 'never-leased'])
        expect(await store.load(runId), runId).toEqual(before.get(runId));

      // Everything it took is now live in its hands: a second sweep at once takes nothing.
      expect(
        await leases.claimDue(ownerOf('h8'), {
          now: sweepAt,
          dueBy: CLOCK + 1000,
          ttlMs: TTL,
          limit: 100,
          takeFrom: ['gone'],
        }),
      ).toEqual([]);
    });

    it('claimDue claims no more than its limit, each run once, the rest at the next sweeps', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      const runIds = ['r1', 'r2', 'r3', 'r4', 'r5'];
      await store.commit(runIds.map((runId) => leasedCreate(runId, 'h1')));
      await leases.release(
        'h1',
        runIds.map((runId, i) => ({ runId, epoch: 1, wakeAt: CLOCK + i })),
        { now: NOW, handedOver: false },
      );
      const sweep = () => leases.claimDue(ownerOf('h2'), { now: NOW + 1, dueBy: CLOCK + 10, ttlMs: TTL, limit: 2 });
      const sizes: number[] = [];
      const claimed: string[] = [];
      for (let i = 0; i < 4; i++) {
        const claims = await sweep();
        sizes.push(claims.length);
        claimed.push(...claims.map((c) => c.run.runId));
      }
      expect(sizes).toEqual([2, 2, 1, 0]);
      expect(claimed.sort()).toEqual(runIds);
    });

    it('claimDue passes over the runs it is told to, before its limit', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      // One run of each way in, and `second`, expired after `first`: a limit of one would take `first` first.
      await store.commit([
        leasedCreate('first', 'h1', { lease: leaseOf('h1', 1, NOW, NOW + 1) }),
        leasedCreate('second', 'h1', { lease: leaseOf('h1', 1, NOW, NOW + 2) }),
        leasedCreate('of-dead-holder', 'gone', { lease: leaseOf('gone', 1, NOW, NOW + 3 * TTL) }),
        leasedCreate('due', 'h1'),
        leasedCreate('handed-over', 'h1'),
      ]);
      await leases.release('h1', [{ runId: 'due', epoch: 1, wakeAt: CLOCK + 1 }], { now: NOW, handedOver: false });
      await leases.release('h1', [{ runId: 'handed-over', epoch: 1, wakeAt: null }], { now: NOW, handedOver: true });
      const before = new Map((await store.list()).map((run) => [run.runId, run]));
      const passed = ['first', 'of-dead-holder', 'due', 'handed-over'];
      const sweep = async (limit: number, passOver: string[]) => {
        const options = { now: NOW + TTL, dueBy: CLOCK + 1000, ttlMs: TTL, limit, takeFrom: ['gone'], passOver };
        return (await leases.claimDue(ownerOf('h9'), options)).map((claim) => claim.run.runId);
      };

      expect(await sweep(1, passed)).toEqual(['second']);
      expect(await sweep(100, passed)).toEqual([]);
      for (const runId of passed) expect(await store.load(runId), runId).toEqual(before.get(runId));
      // Not passed over any more, a run is taken as usual.
      expect(await sweep(100, passed.slice(1))).toEqual(['first']);
    });

    it('claimRun takes a run nobody holds live, one held by the same host id or by a dead holder, and refuses a live holder with RunHeldError', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      await store.commit([
        leasedCreate('a', 'h1'),
        leasedCreate('b', 'h1'),
        leasedCreate('c', 'h1'),
        { run: row('d', 0), expectedSeq: undefined },
      ]);
      await leases.release('h1', [{ runId: 'b', epoch: 1, wakeAt: CLOCK }], { now: NOW + 1, handedOver: false });
      const options = { now: NOW + 1000, ttlMs: TTL };

      expect(await leases.claimRun('unknown', ownerOf('h2'), options)).toBeUndefined();

      const refused = await rejection(leases.claimRun('a', ownerOf('h2'), options));
      expect(refused).toBeInstanceOf(RunHeldError);
      expect(refused).toMatchObject({ runId: 'a', lease: held('h1', 1, NOW) });
      expect((refused as Error).message).toContain("Run 'a' is hosted by 'h1' (epoch 1");
      expect((await store.load('a'))!.lease).toEqual(held('h1', 1, NOW));

      // h1 is known dead: taken over.
      const taken = (await leases.claimRun('a', ownerOf('h2'), { ...options, takeFrom: ['h1'] }))!;
      expect(taken.run).toEqual({ ...row('a', 0), owner: ownerOf('h2'), lease: held('h2', 2, NOW + 1000) });
      expect(taken.previous).toEqual(held('h1', 1, NOW));
      if (taken.previousOwner !== undefined) expect(taken.previousOwner).toEqual(ownerOf('h1'));
      // A later process of host h2 (another pid) takes its own host id's run: the epoch fences the earlier one.
      const again = (await leases.claimRun('a', ownerOf('h2', 300), { now: NOW + 2000, ttlMs: TTL }))!;
      expect(again.run.lease).toEqual(held('h2', 3, NOW + 2000));
      expect(again.run.owner).toEqual(ownerOf('h2', 300));

      // Released: taken, with the released lease as `previous` and its deadline kept.
      const woken = (await leases.claimRun('b', ownerOf('h3'), options))!;
      expect(woken.previous).toMatchObject({ holder: 'h1', state: 'released', epoch: 1 });
      expect(woken.run).toMatchObject({ lease: held('h3', 2, NOW + 1000), wakeAt: CLOCK });
      // Expired: taken.
      const expired = (await leases.claimRun('c', ownerOf('h3'), { now: NOW + TTL, ttlMs: TTL }))!;
      expect(expired.previous).toEqual(held('h1', 1, NOW));
      expect(expired.run.lease).toEqual(held('h3', 2, NOW + TTL));
      // Never leased: taken at epoch 1, with no previous lease.
      const first = (await leases.claimRun('d', ownerOf('h3'), options))!;
      expect(first.previous).toBeUndefined();
      expect(first.run.lease).toEqual(held('h3', 1, NOW + 1000));
    });

    it('claimRun takes an ended run whoever holds it: its holder may have died between its last commit and letting go', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      await store.commit([leasedCreate('done', 'h1', { status: 'done' }), leasedCreate('live', 'h1')]);
      const options = { now: NOW + 1000, ttlMs: TTL };
      // holders() counts active runs only, so no sweep would ever name h1 dead for this run.
      const taken = (await leases.claimRun('done', ownerOf('h2'), options))!;
      expect(taken.previous).toEqual(held('h1', 1, NOW));
      expect(taken.run).toMatchObject({ status: 'done', lease: held('h2', 2, NOW + 1000) });
      // An active run of the same live holder is still refused.
      expect(await rejection(leases.claimRun('live', ownerOf('h2'), options))).toBeInstanceOf(RunHeldError);
    });

    it('claimRuns answers each run as claimRun would, in the order asked: claimed, RunHeldError, or undefined for an unknown run', async (ctx) => {
      const { store } = await open();
      const leases = leasesOf(store);
      if (!leases.claimRuns)
        return ctx.skip(`the ${store.kind} store has no claimRuns (optional: the runtime claims each run alone)`);
      await store.commit([
        leasedCreate('a', 'h1'),
        leasedCreate('b', 'h1'),
        leasedCreate('c', 'h1'),
        leasedCreate('e', 'h4'),
        leasedCreate('done', 'h1', { status: 'done' }),
      ]);
      await store.commit([{ run: row('d', 0), expectedSeq: undefined }]);
      await leases.release('h1', [{ runId: 'b', epoch: 1, wakeAt: CLOCK }], { now: NOW + 1, handedOver: false });
      const now = NOW + 1000;

      // Asked in an order unlike the store's: e held live by h4, h1 known dead (takeFrom).
      const answers = await leases.claimRuns(['e', 'd', 'unknown', 'b', 'a', 'done'], ownerOf('h2'), {
        now,
        ttlMs: TTL,
        takeFrom: ['h1'],
      });
      expect(answers).toHaveLength(6);
      const [e, d, unknown, b, a, done] = answers;
      expect(e).toBeInstanceOf(RunHeldError);
      expect(e).toMatchObject({ runId: 'e', lease: held('h4', 1, NOW) });
      expect((d as Claim).run).toEqual({ ...row('d', 0), owner: ownerOf('h2'), lease: held('h2', 1, now) });
      expect((d as Claim).previous).toBeUndefined();
      expect(unknown).toBeUndefined();
      expect(b).toMatchObject({
        run: { runId: 'b', wakeAt: CLOCK, lease: held('h2', 2, now) },
        previous: { holder: 'h1', state: 'released', epoch: 1 },
      });
      expect(a).toMatchObject({
        run: { runId: 'a', owner: ownerOf('h2'), lease: held('h2', 2, now) },
        previous: held('h1', 1, NOW),
      });
      expect(done).toMatchObject({ run: { runId: 'done', status: 'done', lease: held('h2', 2, now) } });
      // What is stored is what was answered; the refused run is left as it was, and c was not asked for.
      expect((await store.load('e'))!.lease).toEqual(held('h4', 1, NOW));
      expect((await store.load('a'))!.lease).toEqual(held('h2', 2, now));
      expect((await store.load('c'))!.lease).toEqual(held('h1', 1, NOW));
      // A commit fenced by a claimed lease goes through.
      await store.commit([fencedStep('a', 1, leaseOf('h2', 2, now))]);
      expect((await store.load('a'))!.seq).toBe(1);
    });

    it('renewals, releases and commits of many runs at once, in opposite orders, all go through: no two wait on each other in a cycle', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      const ids = Array.from({ length: 100 }, (_, i) => `run-${String(i).padStart(3, '0')}`);
      const lease = leaseOf('h1', 1, NOW, NOW + 60 * TTL);
      await store.commit(ids.map((id) => leasedCreate(id, 'h1', { lease })));
      const seqs = new Map(ids.map((id) => [id, 0]));
      const held = (order: readonly string[]) => order.map((runId) => ({ runId, epoch: 1 }));
      // On Postgres these deadlocked about every other round (a renewal failed after a 1 s wait)
      // until every statement that writes several runs locked them in one order.
      for (let round = 0; round < 10; round++) {
        const stepped = [...ids].reverse().filter((_, i) => i % 2 === round % 2);
        const steps = stepped.map((id) => fencedStep(id, seqs.get(id)! + 1, lease));
        const renewal = { now: NOW + round, ttlMs: 60 * TTL };
        const [lost, lostReversed] = await Promise.all([
          leases.renew('h1', held(ids), renewal),
          leases.renew('h1', held([...ids].reverse()), renewal),
          store.commit(steps),
        ]);
        expect([lost, lostReversed]).toEqual([[], []]);
        for (const id of stepped) seqs.set(id, seqs.get(id)! + 1);
      }
      for (const id of ids) expect((await store.load(id))?.seq).toBe(seqs.get(id));
      // A release beside a renewal: whichever goes first, both go through.
      await Promise.all([
        leases.release(
          'h1',
          held([...ids].reverse()).map((l) => ({ ...l, wakeAt: null })),
          { now: NOW + 10, handedOver: false },
        ),
        leases.renew('h1', held(ids), { now: NOW + 10, ttlMs: TTL }),
      ]);
      for (const id of ids) expect((await store.load(id))?.lease?.state).toBe('released');
    });

    it('holders() names the owners of the runs held now, with how many each holds', async () => {
      const { store } = await open();
      const leases = leasesOf(store);
      expect(await leases.holders()).toEqual([]);
      await store.commit([
        leasedCreate('a', 'h1'),
        leasedCreate('b', 'h1'),
        leasedCreate('c', 'h2'),
        leasedCreate('d', 'h3'),
      ]);
      await leases.release('h3', [{ runId: 'd', epoch: 1, wakeAt: null }], { now: NOW, handedOver: false });
      const sorted = (list: Awaited<ReturnType<StoreLeases['holders']>>) =>
        [...list].sort((x, y) => x.owner.id.localeCompare(y.owner.id));
      expect(sorted(await leases.holders())).toEqual([
        { owner: ownerOf('h1'), runs: 2 },
        { owner: ownerOf('h2'), runs: 1 },
      ]);
      await leases.claimRun('c', ownerOf('h1'), { now: NOW + TTL, ttlMs: TTL });
      expect(sorted(await leases.holders())).toEqual([{ owner: ownerOf('h1'), runs: 3 }]);
    });
  });
}
