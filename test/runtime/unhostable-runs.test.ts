/**
 * A run this host cannot host (its machine is not registered here, or its stored version has no
 * migration) is set aside once and then left alone: the sweep does not claim it again, round after
 * round, raising its epoch with a store write each time. A run someone else has committed to since
 * (ended, moved on by a host that can host it) is looked at again, once.
 */
import { describe, expect, it } from 'vitest';
import { explainRun } from '../../src/explain/index.js';
import { createRuntime, ManualClock, RunSetAsideError, type Runtime } from '../../src/runtime/index.js';
import type { Claim, Store, StoredRun } from '../../src/stores/store.js';
import { articleV1, articleV2 } from '../fixtures/changed-machine.js';
import { until } from '../support/until.js';
import { closedAfterEach, jobLifecycle, leaseStores, Processes, storeWith } from './lease-fixtures.js';

const T0 = Date.UTC(2026, 10, 25, 8);
/** Short, so that a sweep comes every 50 ms (ttl/4) and an expired lease is due at once. */
const TTL = 200;

const keep = closedAfterEach();

/** `store`, counting the sweeps it answers and what each claimed. */
function watchedSweeps(store: Store): { store: Store; sweeps: Claim[][] } {
  const leases = store.leases!;
  const sweeps: Claim[][] = [];
  return {
    sweeps,
    store: storeWith(store, {
      leases: {
        claimDue: async (owner, options) => {
          const claims = await leases.claimDue(owner, options);
          sweeps.push(claims);
          return claims;
        },
      },
    }),
  };
}

/** Resolves once `count` more sweeps than now have been answered: proof that that many rounds passed. */
const sweepsLater = (sweeps: readonly unknown[], count: number) => {
  const target = sweeps.length + count;
  return until(`${count} more sweeps`, () => sweeps.length >= target);
};

const claimedIn = (sweeps: readonly Claim[][], runId: string) =>
  sweeps.flat().filter((claim) => claim.run.runId === runId).length;

describe.each(leaseStores)('runs this host cannot host, on the $name store', ({ shared }) => {
  /**
   * A store holding `stray` (a machine only the writer hosts), `old` (article v1, which the host
   * knows only as v2 with no migration) and `job-1`, left by a writer closed without hand-over:
   * their leases run out at once, so every sweep finds them due.
   */
  async function strandedStore(open: () => Promise<Store>): Promise<void> {
    const writer = await createRuntime({
      store: keep(await open()),
      machines: { article: articleV1, stray: articleV1, job: jobLifecycle() },
      actors: new Processes().actorsFor('writer'),
      clock: new ManualClock(T0),
      owner: 'writer',
      leases: { ttlMs: TTL },
      hibernate: false,
      recover: false,
    });
    await writer.start('stray', { id: 'stray', input: { title: 'stray' } });
    await writer.start('article', { id: 'old', input: { title: 'old' } });
    await writer.start('job', { id: 'job-1', input: { deadline: T0 + 3_600_000 } });
    await writer.close();
  }

  /** The host: it knows article only as v2 (no migration from v1) and not `stray`; `setAside` hears each run it sets aside. */
  async function host(store: Store, setAside: string[] = []): Promise<Runtime> {
    return keep(
      await createRuntime({
        store,
        machines: { article: articleV2, job: jobLifecycle() },
        actors: new Processes().actorsFor('host'),
        clock: new ManualClock(T0),
        owner: 'host',
        leases: { ttlMs: TTL },
        hibernate: false,
        onError: ({ runId, error }) => {
          if (error instanceof RunSetAsideError) setAside.push(runId);
        },
      }),
    );
  }

  const leaseOf = async (store: Store, runId: string): Promise<StoredRun['lease']> => (await store.load(runId))!.lease;

  /** The lease of `runId` once the host has let it run out (held, expiring at its last renewal): how a run set aside is left. */
  const leftToRunOut = (store: Store, runId: string) =>
    until(`the lease of ${runId} let run out`, async () => {
      const lease = await leaseOf(store, runId);
      return lease?.holder === 'host' && lease.expiresAt <= lease.renewedAt && lease;
    });

  it('sets each aside once, with its reason, and claims it no more while it is unchanged', async () => {
    const { open } = shared();
    await strandedStore(open);
    const { store, sweeps } = watchedSweeps(keep(await open()));
    const setAside: string[] = [];
    const rt = await host(store, setAside);

    expect(rt.restoredAtStart.map((r) => r.runId)).toEqual(['job-1']);
    const reasons = Object.fromEntries(rt.setAside().map((r) => [r.runId, r.reason]));
    expect(reasons).toEqual({
      stray: expect.stringMatching(/Unknown machine 'stray'/),
      old: expect.stringMatching(/no migration|migration/i),
    });
    const leases = { stray: await leftToRunOut(store, 'stray'), old: await leftToRunOut(store, 'old') };
    expect(claimedIn(sweeps, 'stray')).toBe(1);
    expect(claimedIn(sweeps, 'old')).toBe(1);

    // Several sweeps later (and the lease of the run it hosts renewed meanwhile), neither was claimed again.
    await sweepsLater(sweeps, 6);
    expect(claimedIn(sweeps, 'stray')).toBe(1);
    expect(claimedIn(sweeps, 'old')).toBe(1);
    expect(await leaseOf(store, 'stray')).toEqual(leases.stray);
    expect(await leaseOf(store, 'old')).toEqual(leases.old);
    expect(setAside.sort()).toEqual(['old', 'stray']);

    // An event sent to one is refused without a claim: nothing is written.
    await expect(rt.dispatch('old', { type: 'NEXT' })).rejects.toThrow(RunSetAsideError);
    expect(await leaseOf(store, 'old')).toEqual(leases.old);

    // What `explain` and the API say of them: why they wait.
    const old = await explainRun(rt, 'old');
    expect(old.setAside?.reason).toBe(reasons.old);
    expect(old.verdict).toMatch(/^set aside: /);
    const stray = await explainRun(rt, 'stray');
    expect(stray.setAside?.reason).toBe(reasons.stray);
    expect(stray.verdict).toMatch(/^set aside: .*Unknown machine 'stray'/);
  });

  it('looks again, once, at a run someone else committed to since', async () => {
    const { open } = shared();
    await strandedStore(open);
    const { store, sweeps } = watchedSweeps(keep(await open()));
    const rt = await host(store);
    expect(claimedIn(sweeps, 'stray')).toBe(1);
    await leftToRunOut(store, 'stray');

    // A host that does host `stray` moves it on, and goes (its lease left to run out).
    const other = keep(
      await createRuntime({
        store: keep(await open()),
        machines: { stray: articleV1 },
        clock: new ManualClock(T0),
        owner: 'other',
        leases: { ttlMs: TTL },
        hibernate: false,
        recover: false,
      }),
    );
    await other.dispatch('stray', { type: 'NEXT' });
    const movedOn = (await store.load('stray'))!;
    expect(movedOn).toMatchObject({ seq: 1, lease: { holder: 'other' } });
    await other.close();

    // This host's sweep takes it again (it changed), cannot host it still, and sets it aside at its new seq: once.
    await until('the sweep to take the changed run', () => claimedIn(sweeps, 'stray') === 2);
    const again = await leftToRunOut(store, 'stray');
    expect(again).toMatchObject({ holder: 'host', epoch: movedOn.lease!.epoch + 1 });
    await sweepsLater(sweeps, 6);
    expect(claimedIn(sweeps, 'stray')).toBe(2);
    expect(await leaseOf(store, 'stray')).toEqual(again);
    expect(rt.setAside().map((r) => [r.runId, r.state])).toContainEqual(['stray', 'review']);
  });
});
