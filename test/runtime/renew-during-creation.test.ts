/**
 * A run being started is held from before its creation commit is durable; a lease renewal that
 * runs meanwhile (a slow store, a busy machine, a short TTL) must not take the store's "I do not
 * know this run" for a lost lease, or the run's next event would be refused as not leased.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, type Runtime } from '../../src/runtime/index.js';
import type { Store } from '../../src/stores/store.js';
import { jobHost, leaseStores, Processes, storeWith } from './lease-fixtures.js';

const T0 = Date.UTC(2026, 10, 24, 8);

const opened: Array<Runtime | Store> = [];
afterEach(async () => {
  const all = opened.splice(0);
  for (const it of all) if (!('kind' in it)) await it.close();
  for (const it of new Set(all)) if ('kind' in it) await it.close();
});
const keep = <T extends Runtime | Store>(it: T): T => (opened.push(it), it);

/** `store`, whose creation commits are written only after a lease renewal has come back, once `slow` is set. */
function creationsAfterARenewal(store: Store): { store: Store; slow(): void } {
  const leases = store.leases!;
  let slow = false;
  let renewed: () => void = () => {};
  const aRenewal = () => new Promise<void>((resolve) => (renewed = resolve));
  const altered = storeWith(store, {
    leases: {
      renew: async (...args) => {
        const lost = await leases.renew(...args);
        renewed();
        return lost;
      },
    },
    commit: async (commits) => {
      if (slow && commits.some((c) => c.expectedSeq === undefined)) await aRenewal();
      return store.commit(commits);
    },
  });
  return { store: altered, slow: () => void (slow = true) };
}

describe.each(leaseStores)('a renewal while a run is being created on the $name store', ({ shared }) => {
  it('keeps the new run held: its next event commits', async () => {
    const { open } = shared();
    const store = keep(await open());
    const link = creationsAfterARenewal(store);
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
    await expect(host.dispatch('new', { type: 'FINISH' })).resolves.toMatchObject({ state: 'waiting', seq: 1 });
    expect((await store.load('new'))?.lease).toMatchObject({ holder: 'host', state: 'held', epoch: 1 });
  });
});
