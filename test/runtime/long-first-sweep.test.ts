/**
 * A host that starts on many runs to take over keeps the leases it has claimed while its first
 * sweep goes on: that sweep can take longer than a lease lasts (a busy machine, thousands of runs
 * to restore), and a lease left to run out meanwhile is claimed again behind the runtime's back
 * (by this very sweep, or another host), so the run's next commit would be refused.
 */
import { describe, expect, it } from 'vitest';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import type { Claim, Store } from '../../src/stores/store.js';
import { until } from '../support/until.js';
import { jobLifecycle, leaseStores, closedAfterEach, Processes, storeWith } from './lease-fixtures.js';

const T0 = Date.UTC(2026, 10, 24, 8);
const TTL = 300;
/** More than one sweep round (100 runs). */
const RUNS = 150;

const keep = closedAfterEach();

/** `store`, whose sweep answers its second round only once every lease its first round claimed would have run out unrenewed. */
function slowSecondRound(store: Store): Store {
  const leases = store.leases!;
  let firstRound: Claim[] | undefined;
  return storeWith(store, {
    leases: {
      claimDue: async (owner, options) => {
        if (firstRound) {
          const runOut = Math.max(...firstRound.map((claim) => claim.run.lease!.expiresAt));
          await until('the first round’s leases to pass their expiry', () => Date.now() > runOut + 20);
          return leases.claimDue(owner, { ...options, now: Date.now() });
        }
        firstRound = await leases.claimDue(owner, options);
        return firstRound;
      },
    },
  });
}

describe.each(leaseStores)('a first sweep longer than a lease on the $name store', ({ shared }) => {
  it('renews what it has claimed, so every run it took commits under its lease', async () => {
    const { open } = shared();
    const store = keep(await open());
    const clock = new ManualClock(T0);
    const machines = { job: jobLifecycle() };
    const gone = await createRuntime({
      store,
      machines,
      actors: new Processes().actorsFor('gone'),
      clock,
      owner: 'gone',
      leases: { ttlMs: TTL },
      hibernate: false,
      recover: false,
    });
    const ids = Array.from({ length: RUNS }, (_, i) => `job-${i}`);
    await Promise.all(
      ids.map(async (id) => {
        await gone.start('job', { id, input: { deadline: T0 + 3_600_000 } });
        await gone.dispatch(id, { type: 'FINISH' });
      }),
    );
    // Closed without hand-over: its leases are left run out, for the next host to take over.
    await gone.close();

    const next = keep(
      await createRuntime({
        store: slowSecondRound(keep(await open())),
        machines,
        actors: new Processes().actorsFor('next'),
        clock,
        owner: 'next',
        leases: { ttlMs: TTL },
        hibernate: false,
      }),
    );
    expect(next.restoredAtStart).toHaveLength(RUNS);
    const notes = await Promise.allSettled(
      ids.map((id) => next.dispatch(id, { type: 'NOTE', text: 'after the takeover' })),
    );
    expect(notes.filter((note) => note.status === 'rejected')).toEqual([]);
    for (const id of ids)
      expect((await store.load(id))?.lease).toMatchObject({ holder: 'next', state: 'held', epoch: 2 });
  });
});
