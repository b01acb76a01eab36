/**
 * A run's lease is held from before its creating commit (its first steps are fenced by it), but
 * the store has no row for it until that commit lands: a renewal that runs meanwhile must not ask
 * for it, or the store reports it lost and the host drops the run it just started. Found by the
 * chaos test (test/serve/chaos-postgres.test.ts): a session started on a busy host was orphaned by
 * another host's sweep without anything having failed.
 */
import { afterEach, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import type { Store } from '../../src/stores/store.js';
import { until } from '../support/until.js';
import { jobHost, Processes, storeWith, withResolvers } from './lease-fixtures.js';

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/**
 * `base`, with creating commits held back until `letCreationsThrough()`, and its renewals counted.
 * Its leases run on a clock that stands still (every lease call's `now` is fixed), so that no lease
 * runs out because the machine is busy: a 300 ms lease on real time did on a loaded machine, and
 * the host's own sweep claimed its runs back.
 */
function slowCreations(base: Store) {
  const gate = withResolvers();
  const renewed: string[][] = [];
  const leases = base.leases!;
  const now = Date.now();
  const store = storeWith(base, {
    leases: {
      renew: (holder, held, options) => (
        renewed.push(held.map((l) => l.runId)), leases.renew(holder, held, { ...options, now })
      ),
      claimDue: (owner, options) => leases.claimDue(owner, { ...options, now }),
      claimRun: (runId, owner, options) => leases.claimRun(runId, owner, { ...options, now }),
      release: (holder, held, options) => leases.release(holder, held, { ...options, now }),
      ...(leases.claimRuns && {
        claimRuns: (runIds, owner, options) => leases.claimRuns!(runIds, owner, { ...options, now }),
      }),
    },
    commit: async (commits) => (
      commits.some((c) => c.expectedSeq === undefined) && (await gate.promise), base.commit(commits)
    ),
  });
  return { store, renewed, letCreationsThrough: gate.resolve };
}

it('does not renew, and so never loses, a run whose creating commit is still on its way', async () => {
  const base = memoryStore();
  const deadline = Date.now() + 600_000;
  // One run created before the gate shuts, so that every renewal shows in the count.
  const open = await jobHost(new Processes(), { store: base, owner: 'a', ttlMs: 300, hibernate: false });
  await open.start('job', { id: 'old', input: { deadline } });
  await open.close({ handOver: true });

  const slow = slowCreations(base);
  runtime = await jobHost(new Processes(), { store: slow.store, owner: 'a', ttlMs: 300, hibernate: false });
  await until("the sweep to adopt 'old'", async () => (await base.load('old'))?.lease?.epoch === 2);
  const starting = runtime.start('job', { id: 'new', input: { deadline } });
  const renewalsBefore = slow.renewed.length;
  await until('a renewal while the new run is being created', () => slow.renewed.length > renewalsBefore);
  slow.letCreationsThrough();
  await starting;

  expect(slow.renewed.slice(renewalsBefore).every((runIds) => !runIds.includes('new'))).toBe(true);
  expect(await runtime.dispatch('new', { type: 'NOTE', text: 'still hosted here' })).toMatchObject({ seq: 1 });
  expect((await base.load('new'))?.lease).toMatchObject({ holder: 'a', state: 'held', epoch: 1 });
  // From now on it is renewed with the others.
  const renewalsAfter = slow.renewed.length;
  await until("a renewal of 'new'", () => slow.renewed.slice(renewalsAfter).some((runIds) => runIds.includes('new')));
});
