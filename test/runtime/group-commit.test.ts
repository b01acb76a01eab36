import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GroupCommitter } from '../../src/runtime/group-commit.js';
import { memoryStore, type Commit, type Store } from '../../src/stores/index.js';

/** A memory store whose commits wait until the test lets each one through, so batches in flight can be counted. */
function gatedStore(commitsAtOnce: number | undefined) {
  const inner = memoryStore();
  const calls: Array<{ runIds: string[]; let: () => void }> = [];
  const store: Store = {
    ...inner,
    ...(commitsAtOnce !== undefined && { commitsAtOnce }),
    commit: async (commits) => {
      await new Promise<void>((resolve) => calls.push({ runIds: commits.map((c) => c.run.runId), let: resolve }));
      await inner.commit(commits);
    },
  };
  return { store, inner, calls };
}

const creation = (runId: string): Commit => ({
  run: {
    runId,
    machine: 'm',
    version: 1,
    status: 'active',
    state: 'idle',
    snapshot: null,
    input: null,
    seq: 0,
    owner: undefined,
    createdAt: 0,
    updatedAt: 0,
  },
  expectedSeq: undefined,
});

describe('group commit', () => {
  it('sends what waits as one batch at a time to a store that takes one commit at a time', async () => {
    const { store, inner, calls } = gatedStore(undefined);
    const committer = new GroupCommitter(store);
    const first = ['a', 'b', 'c', 'd'].map((id) => committer.commit([creation(id)]));
    await nextMacrotask();
    expect(calls.map((c) => c.runIds)).toEqual([['a', 'b', 'c', 'd']]);
    const second = ['e', 'f'].map((id) => committer.commit([creation(id)]));
    await nextMacrotask(); // every microtask has run: a second batch would have been sent by now
    expect(calls).toHaveLength(1);
    calls[0]!.let();
    await Promise.all(first);
    await nextMacrotask();
    expect(calls.map((c) => c.runIds)).toEqual([
      ['a', 'b', 'c', 'd'],
      ['e', 'f'],
    ]);
    calls[1]!.let();
    await Promise.all(second);
    expect((await inner.list()).map((r) => r.runId).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('splits what waits over the free slots of a store that does several commits at once, never more in flight than it takes', async () => {
    const { store, inner, calls } = gatedStore(3);
    const committer = new GroupCommitter(store);
    const first = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => committer.commit([creation(id)]));
    await nextMacrotask();
    expect(calls.map((c) => c.runIds)).toEqual([['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
    const later = ['h', 'i'].map((id) => committer.commit([creation(id)]));
    await nextMacrotask(); // all three slots are taken: nothing more is sent
    expect(calls).toHaveLength(3);
    calls[1]!.let();
    await nextMacrotask();
    // One slot came free: what waited goes to it as one batch.
    expect(calls.map((c) => c.runIds).slice(3)).toEqual([['h', 'i']]);
    for (const call of calls) call.let();
    await Promise.all([...first, ...later]);
    expect((await inner.list()).map((r) => r.runId).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
  });
});
