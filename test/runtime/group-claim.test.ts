import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GroupClaimer } from '../../src/runtime/hosting/group-claim.js';
import { memoryStore, RunHeldError, type Claim, type StoreLeases } from '../../src/stores/index.js';

const owner = (id: string) => ({ id, pid: 1, pidStart: '1', host: 'test' });
const TTL = 10_000;

/** A memory store's leases whose claims wait until the test lets each call through; `fail` makes one run's answer an error of its own. */
async function gatedLeases(runIds: readonly string[], fail: ReadonlyMap<string, Error> = new Map()) {
  const store = memoryStore();
  const now = Date.now();
  await store.commit(
    runIds.map((runId) => ({
      run: {
        runId,
        machine: 'm',
        version: 1,
        status: 'active',
        state: 's',
        snapshot: null,
        input: null,
        seq: 0,
        owner: owner('h1'),
        createdAt: 0,
        updatedAt: 0,
      },
      expectedSeq: undefined,
      lease: {
        holder: runId === 'held' ? 'h1' : 'gone',
        epoch: 1,
        expiresAt: runId === 'held' ? now + TTL : now - 1,
        now: now - TTL,
      },
    })),
  );
  const inner = store.leases!;
  const calls: Array<{ runIds: string[]; let: () => void }> = [];
  const gate = (ids: string[]) => new Promise<void>((resolve) => calls.push({ runIds: ids, let: resolve }));
  const leases: StoreLeases = {
    ...inner,
    claimRun: async (runId, ...rest) => {
      await gate([runId]);
      return inner.claimRun(runId, ...rest);
    },
    claimRuns: async (ids, ...rest) => {
      await gate([...ids]);
      const answers = await inner.claimRuns!(ids, ...rest);
      return answers.map((answer, i) => fail.get(ids[i]!) ?? answer);
    },
  };
  return { store, leases, calls };
}

const settled = <T>(promises: ReadonlyArray<Promise<T>>) => Promise.allSettled(promises);

describe('group claims', () => {
  it('sends a lone claim alone at once, and the claims asked for while it is out together, each answered for its own run', async () => {
    const broken = new Error('run c: the store could not say');
    const { store, leases, calls } = await gatedLeases(['a', 'b', 'c', 'held'], new Map([['c', broken]]));
    const claimer = new GroupClaimer(leases, owner('h2'), TTL);

    const first = claimer.claim('a', []);
    await nextMacrotask();
    expect(calls.map((c) => c.runIds)).toEqual([['a']]);
    const rest = ['b', 'c', 'held', 'unknown'].map((runId) => claimer.claim(runId, []));
    await nextMacrotask(); // every microtask has run: a second call would have been sent by now
    expect(calls).toHaveLength(1);

    calls[0]!.let();
    expect((await first)!.run.lease).toMatchObject({ holder: 'h2', epoch: 2 });
    await nextMacrotask();
    expect(calls.map((c) => c.runIds)).toEqual([['a'], ['b', 'c', 'held', 'unknown']]);
    calls[1]!.let();
    const [b, c, held, unknown] = await settled(rest);
    expect(b).toMatchObject({ status: 'fulfilled', value: { run: { runId: 'b', lease: { holder: 'h2', epoch: 2 } } } });
    expect(c).toEqual({ status: 'rejected', reason: broken });
    expect((held as PromiseRejectedResult).reason).toBeInstanceOf(RunHeldError);
    expect(unknown).toEqual({ status: 'fulfilled', value: undefined });
    expect((await store.load('held'))!.lease).toMatchObject({ holder: 'h1', epoch: 1 });
  });

  it('sends the claims of different takeFrom apart, and one run asked for twice in a batch once', async () => {
    const { leases, calls } = await gatedLeases(['a', 'b', 'c']);
    const claimer = new GroupClaimer(leases, owner('h2'), TTL);
    const first = claimer.claim('a', []);
    await nextMacrotask();
    const later = [claimer.claim('b', []), claimer.claim('b', []), claimer.claim('c', ['dead'])];
    calls[0]!.let();
    await first;
    await nextMacrotask();
    expect(calls.map((c) => c.runIds)).toEqual([['a'], ['b'], ['c']]);
    for (const call of calls.slice(1)) call.let();
    const [b1, b2, c] = (await Promise.all(later)) as Claim[];
    expect(b1).toBe(b2);
    expect([b1!.run.runId, c!.run.runId]).toEqual(['b', 'c']);
  });

  it('refuses every claim of a batch with a clear error when the store answers for fewer runs than asked', async () => {
    const { leases, calls } = await gatedLeases(['a', 'b', 'c']);
    const short: StoreLeases = {
      ...leases,
      claimRuns: async (ids, ...rest) => (await leases.claimRuns!(ids, ...rest)).slice(1),
    };
    const claimer = new GroupClaimer(short, owner('h2'), TTL);
    const first = claimer.claim('a', []);
    await nextMacrotask();
    const later = [claimer.claim('b', []), claimer.claim('c', [])];
    calls[0]!.let();
    await first;
    await nextMacrotask();
    calls[1]!.let();
    for (const outcome of await settled(later)) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { message: expect.stringMatching(/answered 1 runs for the 2 asked \(b, c\): it must answer each run/) },
      });
    }
  });
});
