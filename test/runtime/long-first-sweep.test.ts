/**
 * A host that starts on many runs to take over keeps the leases it has claimed while its first
 * sweep goes on: that sweep can take longer than a lease lasts (a busy machine, thousands of runs
 * to restore), and a lease left to run out meanwhile is claimed again behind the runtime's back
 * (by this very sweep, or another host), so the run's next commit would be refused.
 *
 * Deterministic: the leases run on the test's clock (every lease call's `now` is the test's), and
 * the sweep's second round answers only once that clock has moved past every lease its first round
 * claimed and a renewal at the new time has come back for each of them. Before, the leases ran on
 * real time with a 300 ms TTL, and a machine busy for longer than that failed the test.
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

/**
 * `store` on the test's lease clock, whose sweep answers its second round only once the clock has
 * passed every lease its first round claimed and each of those runs has been renewed since: had the
 * host not renewed them, the second round would claim them again (and the test would wait here).
 */
function slowSecondRound(store: Store): Store {
  const leases = store.leases!;
  // Later than every lease the host before left: it let them all run out when it closed.
  let now = Date.now() + 60 * TTL;
  let firstRound: Claim[] | undefined;
  /** Once the clock moved past the first round's leases: the time it moved to, and the runs renewed at it. */
  let since: { now: number; renewed: Set<string> } | undefined;
  const renewedSince = () => since !== undefined && firstRound!.every((claim) => since!.renewed.has(claim.run.runId));
  return storeWith(store, {
    leases: {
      renew: async (holder, batch, options) => {
        const at = now;
        const lost = await leases.renew(holder, batch, { ...options, now: at });
        if (since && at === since.now)
          for (const { runId } of batch) if (!lost.includes(runId)) since.renewed.add(runId);
        return lost;
      },
      claimDue: async (owner, options) => {
        if (!firstRound) {
          firstRound = await leases.claimDue(owner, { ...options, now });
          return firstRound;
        }
        if (!since) {
          now = Math.max(...firstRound.map((claim) => claim.run.lease!.expiresAt)) + 20;
          since = { now, renewed: new Set() };
          await until('every run of the first round renewed after its lease would have run out', renewedSince);
        }
        return leases.claimDue(owner, { ...options, now });
      },
      claimRun: (runId, owner, options) => leases.claimRun(runId, owner, { ...options, now }),
      release: (holder, batch, options) => leases.release(holder, batch, { ...options, now }),
      ...(leases.claimRuns && {
        claimRuns: (runIds, owner, options) => leases.claimRuns!(runIds, owner, { ...options, now }),
      }),
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
