/**
 * What the runtime does when the store cannot say whether a commit took (CommitOutcomeUnknownError,
 * see the Postgres store): the event is refused as unknown, and the run is read again from the
 * store before its next event, so that event extends what the store holds, whichever way the lost
 * commit went, instead of hitting CommitConflictError with its own earlier step.
 */
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { Lifecycle } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { CommitOutcomeUnknownError, StoreUnavailableError } from '../../src/stores/store-errors.js';
import { memoryStore, type Store } from '../../src/stores/index.js';

const counter = setup({ types: { context: {} as { count: number }, events: {} as { type: 'ADD' } } }).createMachine({
  id: 'counter',
  initial: 'counting',
  context: { count: 0 },
  states: { counting: { on: { ADD: { actions: assign({ count: ({ context }) => context.count + 1 }) } } } },
});
const machines = { counter: { machine: counter, version: 1, summary: 'counts' } satisfies Lifecycle };

/** A store whose next commit is lost in the way asked: applied or not, answered as unknown; and whose next reads may fail. */
function uncertainStore() {
  const inner = memoryStore();
  let next: 'applied' | 'not applied' | undefined;
  let failingReads = 0;
  const store: Store = {
    ...inner,
    async commit(commits) {
      const lost = next;
      next = undefined;
      if (lost === 'applied') await inner.commit(commits);
      if (lost)
        throw new CommitOutcomeUnknownError(
          'test',
          'memory',
          '42',
          commits.map((c) => ({ runId: c.run.runId, seq: c.run.seq })),
          'the reply was lost',
        );
      return inner.commit(commits);
    },
    async load(runId) {
      if (failingReads > 0) {
        failingReads--;
        throw new StoreUnavailableError('test', 'memory', 'the server went away');
      }
      return inner.load(runId);
    },
  };
  return {
    store,
    loseNextCommit: (how: 'applied' | 'not applied') => void (next = how),
    failReads: (n: number) => void (failingReads = n),
  };
}

describe('a commit of unknown outcome', () => {
  it.each(['applied', 'not applied'] as const)(
    'refuses the event as unknown, and the next event extends what the store holds (%s)',
    async (how) => {
      const { store, loseNextCommit } = uncertainStore();
      const rt = await createRuntime({ store, machines });
      await rt.start('counter', { id: 'c' });
      await rt.dispatch('c', { type: 'ADD' });
      loseNextCommit(how);
      await expect(rt.dispatch('c', { type: 'ADD' })).rejects.toBeInstanceOf(CommitOutcomeUnknownError);
      const next = await rt.dispatch('c', { type: 'ADD' });
      const count = how === 'applied' ? 3 : 2;
      expect(next).toMatchObject({ seq: count, context: { count } });
      expect((await store.history('c')).map((e) => e.seq)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      await rt.close();
    },
  );

  it('reads the run again before its next event when reading it right after the loss failed too', async () => {
    const { store, loseNextCommit, failReads } = uncertainStore();
    const rt = await createRuntime({ store, machines });
    await rt.start('counter', { id: 'c' });
    loseNextCommit('applied');
    failReads(2); // the read right after the loss, and the one before the next event
    await expect(rt.dispatch('c', { type: 'ADD' })).rejects.toBeInstanceOf(CommitOutcomeUnknownError);
    await expect(rt.dispatch('c', { type: 'ADD' })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await rt.dispatch('c', { type: 'ADD' })).toMatchObject({ seq: 2, context: { count: 2 } });
    expect((await store.history('c')).map((e) => e.seq)).toEqual([1, 2]);
    await rt.close();
  });
});
