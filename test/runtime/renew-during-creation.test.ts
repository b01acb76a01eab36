/**
 * A run being started is held from before its creation commit is durable; a lease renewal that
 * runs meanwhile (a slow store, a busy machine, a short TTL) must not take the store's "I do not
 * know this run" for a lost lease, or the run's next event would be refused as not leased.
 *
 * Deterministic on every store with leases: the slow link is the test's (the creation commit is
 * written only once a renewal sent while it waits has come back), and the leases' clock is the
 * test's too (every lease call's `now` is fixed), so no lease runs out because the machine is slow.
 * Before, the leases ran on real time with a 60 ms TTL: a creation answered 150 ms late let this
 * host's own sweep claim the new run back (epoch 3, not 1).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, type Runtime } from '../../src/runtime/index.js';
import { jsonFileStore } from '../../src/stores/index.js';
import type { Store } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';
import { jobHost, leaseStores, Processes, storeWith, withResolvers } from './lease-fixtures.js';

const T0 = Date.UTC(2026, 10, 24, 8);

const opened: Array<Runtime | Store> = [];
const gates: Array<() => void> = [];
afterEach(async () => {
  for (const open of gates.splice(0)) open();
  const all = opened.splice(0);
  for (const it of all) if (!('kind' in it)) await it.close();
  for (const it of new Set(all)) if ('kind' in it) await it.close();
});
const keep = <T extends Runtime | Store>(it: T): T => (opened.push(it), it);

/**
 * `store` over the test's link: every lease call sees the leases' clock at `leaseNow` (so a lease
 * runs out only when the test says), and, once `slow` is set, a creation commit is written only
 * after a renewal sent while it waits has come back.
 */
function creationsAfterARenewal(store: Store, leaseNow: number) {
  const leases = store.leases!;
  let slow = false;
  /** The creation commit waiting for a renewal: set while it waits. */
  let waiting: (() => void) | undefined;
  const renewalsDuringCreation: string[][] = [];
  const altered = storeWith(store, {
    leases: {
      renew: async (holder, batch, options) => {
        const heard = waiting;
        if (heard) renewalsDuringCreation.push(batch.map((b) => b.runId));
        const lost = await leases.renew(holder, batch, { ...options, now: leaseNow });
        if (heard && waiting === heard) {
          waiting = undefined;
          heard();
        }
        return lost;
      },
      claimDue: (holder, options) => leases.claimDue(holder, { ...options, now: leaseNow }),
      claimRun: (runId, owner, options) => leases.claimRun(runId, owner, { ...options, now: leaseNow }),
      release: (holder, batch, options) => leases.release(holder, batch, { ...options, now: leaseNow }),
    },
    commit: async (commits) => {
      if (slow && commits.some((c) => c.expectedSeq === undefined)) {
        const renewal = withResolvers();
        gates.push(renewal.resolve);
        waiting = renewal.resolve;
        await renewal.promise;
      }
      return store.commit(commits);
    },
  });
  return { store: altered, slow: () => void (slow = true), renewalsDuringCreation };
}

describe.each(leaseStores)('a renewal while a run is being created on the $name store', ({ shared }) => {
  it('keeps the new run held: its next event commits', async () => {
    const { open } = shared();
    const store = keep(await open());
    const link = creationsAfterARenewal(store, Date.now());
    const host = keep(
      await jobHost(new Processes(), {
        store: link.store,
        owner: 'host',
        clock: new ManualClock(T0),
        ttlMs: 60,
        hibernate: false,
      }),
    );
    // A run held already, so that renewals have something to renew while the next one is created.
    await host.start('job', { id: 'old', input: { deadline: T0 + 3_600_000 } });
    link.slow();
    await host.start('job', { id: 'new', input: { deadline: T0 + 3_600_000 } });
    // The renewal went out while `new` was being created: it renewed `old` and left `new` out.
    expect(link.renewalsDuringCreation.at(-1)).toEqual(['old']);
    await expect(host.dispatch('new', { type: 'FINISH' })).resolves.toMatchObject({ state: 'waiting', seq: 1 });
    expect((await store.load('new'))?.lease).toMatchObject({ holder: 'host', state: 'held', epoch: 1 });
    expect((await store.load('old'))?.lease).toMatchObject({ holder: 'host', state: 'held', epoch: 1 });
  });
});

describe('the json-file store', () => {
  // Its LOCK makes one process its only host: no lease, so no renewal can meet a creation. Were
  // it to get leases, it would belong in the stores above.
  it('has no leases to renew while a run is created', async () => {
    const store = keep(jsonFileStore(testDir('renew-during-creation-json')));
    expect(store.leases).toBeUndefined();
  });
});
