/**
 * A host never loses a run to itself. A host too busy to renew (its renewals stalled here) lets its
 * own lease run out; its sweep then claims the run back under its own id at the next epoch, while
 * a commit fenced by the old epoch is on its way. That commit is refused by the store, and must be
 * made again under the newer lease rather than the run being dropped as "lost" (the store's holder
 * is this very host). Both orders are driven by the test: the claim's answer heard before the
 * refusal, and after it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, type Runtime } from '../../src/runtime/index.js';
import type { RecoveringRun } from '../../machines/lifecycle.js';
import type { Store, StoreLeases } from '../../src/stores/store.js';
import { jobHost, leaseStores, Processes, storeWith, withResolvers } from './lease-fixtures.js';

const T0 = Date.UTC(2026, 11, 5, 9);

const opened: Array<Runtime | Store> = [];
const gates: Array<() => void> = [];
afterEach(async () => {
  for (const open of gates.splice(0)) open();
  const all = opened.splice(0);
  for (const it of all) if (!('kind' in it)) await it.close();
  for (const it of new Set(all)) if ('kind' in it) await it.close();
});
const keep = <T extends Runtime | Store>(it: T): T => (opened.push(it), it);
const gate = () => {
  const g = withResolvers();
  gates.push(g.resolve);
  return g;
};

/** `leases.renew`, held back until `stalled` once `armed()`: a host too busy to renew. */
const stalledRenew =
  (leases: StoreLeases, armed: () => boolean, stalled: Promise<void>): StoreLeases['renew'] =>
  async (...args) => {
    if (armed()) await stalled;
    return leases.renew(...args);
  };

/**
 * `store` whose renewals, a commit to run `a` and the answer of a sweep's claim of `a` the test
 * holds back once armed. `commitLandsFirst`: the commit is written at once and only its answer held back.
 */
function heldStore(store: Store, holdClaimAnswer: boolean, commitLandsFirst = false) {
  const leases = store.leases!;
  let armed = false;
  const renewals = gate();
  const commitOfA = gate();
  const commitHeld = withResolvers();
  const claimAnswer = gate();
  const claimed = withResolvers();
  let sweepsAfterClaim = 0;
  const nextSweep: Array<() => void> = [];
  const altered = storeWith(store, {
    leases: {
      renew: stalledRenew(leases, () => armed, renewals.promise),
      claimDue: async (...args) => {
        const claims = await leases.claimDue(...args);
        if (!armed) return claims;
        if (sweepsAfterClaim++ > 0) for (const heard of nextSweep.splice(0)) heard();
        if (claims.some((c) => c.run.runId === 'a')) {
          sweepsAfterClaim = 1;
          claimed.resolve();
          if (holdClaimAnswer) await claimAnswer.promise;
        }
        return claims;
      },
    },
    commit: async (commits) => {
      if (armed && commits.some((c) => c.run.runId === 'a' && c.expectedSeq !== undefined)) {
        if (commitLandsFirst) {
          const landed = await store.commit(commits);
          commitHeld.resolve();
          await commitOfA.promise;
          return landed;
        }
        commitHeld.resolve();
        await commitOfA.promise;
      }
      return store.commit(commits);
    },
  });
  return {
    store: altered,
    arm: () => void (armed = true),
    commitHeld: commitHeld.promise,
    letCommitGo: commitOfA.resolve,
    claimed: claimed.promise,
    letClaimAnswerGo: claimAnswer.resolve,
    /** Resolves when a sweep after the claim of `a` has begun: the claim's answer has been handled by then. */
    aLaterSweep: () => new Promise<void>((resolve) => nextSweep.push(resolve)),
  };
}

describe.each(leaseStores)(
  'a commit on its way while this host claims back its own lease, on the $name store',
  ({ shared }) => {
    for (const claimAnswerLast of [false, true]) {
      it(`commits it again under the newer epoch and keeps the run (the claim's answer heard ${claimAnswerLast ? 'after' : 'before'} the refusal)`, async () => {
        const { open } = shared();
        const store = keep(await open());
        const link = heldStore(store, claimAnswerLast);
        const logs: string[] = [];
        const host = keep(
          await jobHost(new Processes(), {
            store: link.store,
            owner: 'host',
            clock: new ManualClock(T0),
            ttlMs: 60,
            hibernate: false,
            onLog: (e) => e.runId === 'a' && logs.push(e.message),
          }),
        );
        await host.start('job', { id: 'a', input: { deadline: T0 + 3_600_000 } });
        link.arm();
        const noted = host.dispatch('a', { type: 'NOTE', text: 'first' });
        await link.commitHeld;
        // Its renewals stalled, the lease runs out and this host's own sweep claims the run at epoch 2.
        await link.claimed;
        if (!claimAnswerLast) await link.aLaterSweep();
        link.letCommitGo();
        await expect(noted).resolves.toMatchObject({ seq: 1, context: { notes: ['first'] } });
        if (claimAnswerLast) {
          const later = link.aLaterSweep();
          link.letClaimAnswerGo();
          await later;
        }
        // Held by this host still, at the epoch it claimed or later (with the renewals stalled, the sweep may claim again).
        const lease = (await store.load('a'))?.lease;
        expect(lease).toMatchObject({ holder: 'host', state: 'held' });
        expect(lease!.epoch).toBeGreaterThanOrEqual(2);
        await expect(host.dispatch('a', { type: 'FINISH' })).resolves.toMatchObject({ state: 'waiting', seq: 2 });
        expect(logs.filter((m) => m.startsWith('no longer hosted'))).toEqual([]);
      });
    }

    it('keeps the run when its commit landed before the claim and only the answer comes after: the copy in memory is the run, no recovery rule runs', async () => {
      const { open } = shared();
      const store = keep(await open());
      const link = heldStore(store, false, true);
      const logs: string[] = [];
      const recovered: RecoveringRun[] = [];
      const host = keep(
        await jobHost(new Processes(), {
          store: link.store,
          owner: 'host',
          clock: new ManualClock(T0),
          ttlMs: 60,
          hibernate: false,
          recovered,
          onLog: (e) => e.runId === 'a' && logs.push(e.message),
        }),
      );
      await host.start('job', { id: 'a', input: { deadline: T0 + 3_600_000 } });
      link.arm();
      const noted = host.dispatch('a', { type: 'NOTE', text: 'first' });
      await link.commitHeld;
      // The note is in the store (seq 1); the sweep claims the run back at seq 1, its copy in memory still at 0.
      await link.claimed;
      await link.aLaterSweep();
      link.letCommitGo();
      await expect(noted).resolves.toMatchObject({ seq: 1, context: { notes: ['first'] } });
      await expect(host.dispatch('a', { type: 'FINISH' })).resolves.toMatchObject({ state: 'waiting', seq: 2 });
      expect(recovered).toEqual([]);
      expect(logs.filter((m) => m.startsWith('no longer hosted') || m.startsWith('taken over'))).toEqual([]);
      expect((await store.load('a'))?.lease).toMatchObject({ holder: 'host', state: 'held' });
    });

    it('commits again as often as its own sweep claims the run back meanwhile (twice here), and keeps the run', async () => {
      const { open } = shared();
      const store = keep(await open());
      const leases = store.leases!;
      let armed = false;
      const renewals = gate();
      /** Each commit of `a` after arming, held until the claim of the epoch after its lease's has been answered. */
      const claimedAt = new Map<number, () => void>();
      const claims = new Map<number, Promise<void>>();
      const claimOf = (epoch: number) => {
        if (!claims.has(epoch)) {
          const claimed = withResolvers();
          claimedAt.set(epoch, claimed.resolve);
          claims.set(epoch, claimed.promise);
        }
        return claims.get(epoch)!;
      };
      const link = storeWith(store, {
        leases: {
          renew: stalledRenew(leases, () => armed, renewals.promise),
          claimDue: async (...args) => {
            const claimed = await leases.claimDue(...args);
            for (const c of claimed) if (c.run.runId === 'a' && c.run.lease) claimOf(c.run.lease.epoch);
            // Answered: the sweep after this one is the signal that the runtime has taken the claim in.
            if (armed) setImmediate(() => claimed.forEach((c) => c.run.lease && claimedAt.get(c.run.lease.epoch)?.()));
            return claimed;
          },
        },
        commit: async (commits) => {
          const ofA = commits.find((c) => c.run.runId === 'a' && c.expectedSeq !== undefined);
          // Each try waits until this host's sweep has claimed the run back at the next epoch: the try is refused.
          if (armed && ofA?.lease && ofA.lease.epoch < 3) await claimOf(ofA.lease.epoch + 1);
          return store.commit(commits);
        },
      });
      const logs: string[] = [];
      const host = keep(
        await jobHost(new Processes(), {
          store: link,
          owner: 'host',
          clock: new ManualClock(T0),
          ttlMs: 60,
          hibernate: false,
          onLog: (e) => e.runId === 'a' && logs.push(e.message),
        }),
      );
      await host.start('job', { id: 'a', input: { deadline: T0 + 3_600_000 } });
      armed = true;
      await expect(host.dispatch('a', { type: 'NOTE', text: 'first' })).resolves.toMatchObject({
        seq: 1,
        context: { notes: ['first'] },
      });
      expect((await store.load('a'))?.lease?.epoch).toBeGreaterThanOrEqual(3);
      expect(logs.filter((m) => m.startsWith('no longer hosted'))).toEqual([]);
    });
  },
);
