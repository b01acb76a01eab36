/**
 * Two sends with one idempotency key that land in the same batch: the second answers with the
 * first's result, and so it is acknowledged only if the batch commits. Found while checking the
 * chaos tests' retries (a client retrying a request keeps its key): the repeat was acknowledged
 * even when the batch's commit failed, though nothing was stored.
 */
import { expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { failingStore } from '../support/failing-store.js';

it('acknowledges a repeat of a key in the same batch only once the batch is committed', async () => {
  const { store, failNext } = failingStore();
  const runtime = await createRuntime({ store, machines: { execution: lifecycles.execution } });
  try {
    await runtime.start('execution', { id: 'job' });
    // Sent in one turn, the two land in one batch; its commit fails.
    failNext(1);
    const failed = await Promise.allSettled([
      runtime.dispatch('job', { type: 'ENQUEUE' }, { idempotencyKey: 'k' }),
      runtime.dispatch('job', { type: 'ENQUEUE' }, { idempotencyKey: 'k' }),
    ]);
    expect(
      failed.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : `acknowledged at seq ${r.value.seq}`)),
    ).toEqual(['disk full', 'disk full']);
    expect(await store.history('job')).toEqual([]);

    // Committed, both answer with the one step.
    const [first, second] = await Promise.all([
      runtime.dispatch('job', { type: 'ENQUEUE' }, { idempotencyKey: 'k' }),
      runtime.dispatch('job', { type: 'ENQUEUE' }, { idempotencyKey: 'k' }),
    ]);
    expect([first.seq, second.seq, second.state]).toEqual([1, 1, 'queued']);
    expect((await store.history('job')).map((e) => e.event.type)).toEqual(['ENQUEUE']);
  } finally {
    await runtime.close();
  }
});
