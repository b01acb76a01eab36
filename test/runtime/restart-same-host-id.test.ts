/**
 * A host restarted under the same host id (`serve --host-id NAME`) takes the runs its previous
 * process held, however many there are, each exactly once: the runs it has just claimed are held
 * under that same id, and a second sweep round must not claim them again behind the runtime's back
 * (their commits would then be refused as written under a lost lease).
 */
import { describe, expect, it } from 'vitest';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { jobLifecycle, leaseStores, closedAfterEach, Processes } from './lease-fixtures.js';

const T0 = Date.UTC(2026, 10, 24, 8);
/** More than one sweep round (100 runs) holds. */
const RUNS = 150;

const keep = closedAfterEach();

describe.each(leaseStores)('a restart under the same host id on the $name store', ({ shared }) => {
  it('takes every run its previous process held once, and commits to each of them', async () => {
    const { open } = shared();
    const store = keep(await open());
    const clock = new ManualClock(T0);
    const machines = { job: jobLifecycle() };
    // The previous process of host 'host-a': gone (no process has its pid and start time), its leases still held.
    const previous = keep(
      await createRuntime({
        store,
        machines,
        actors: new Processes().actorsFor('previous'),
        clock,
        owner: { id: 'host-a', pid: 2 ** 22 + 11, pidStart: 'gone' },
        leases: { ttlMs: 60_000 },
        hibernate: false,
        recover: false,
      }),
    );
    const ids = Array.from({ length: RUNS }, (_, i) => `job-${i}`);
    await Promise.all(
      ids.map(async (id) => {
        await previous.start('job', { id, input: { deadline: T0 + 3_600_000 } });
        await previous.dispatch(id, { type: 'FINISH' });
      }),
    );
    expect((await store.load('job-0'))?.lease).toMatchObject({ holder: 'host-a', state: 'held', epoch: 1 });

    const restarted = keep(
      await createRuntime({
        store: keep(await open()),
        machines,
        actors: new Processes().actorsFor('restarted'),
        clock,
        owner: 'host-a',
        leases: { ttlMs: 60_000 },
        hibernate: false,
      }),
    );
    expect(restarted.restoredAtStart).toHaveLength(RUNS);
    const notes = await Promise.allSettled(
      ids.map((id) => restarted.dispatch(id, { type: 'NOTE', text: 'after the restart' })),
    );
    expect(notes.filter((note) => note.status === 'rejected')).toEqual([]);
    for (const id of ids)
      expect((await store.load(id))?.lease).toMatchObject({ holder: 'host-a', state: 'held', epoch: 2 });
  });
});
