/**
 * Events and inputs larger than the runtime's limit (default 1 MiB of JSON) are refused with a
 * PayloadTooLargeError naming the size, the limit and how to raise it, before anything is queued
 * or stored; the limits are set with createRuntime({ limits }).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import {
  createRuntime,
  InvalidArgumentError,
  PayloadTooLargeError,
  type Runtime,
  type RuntimeError,
} from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

const MiB = 1024 * 1024;

async function runtime(limits?: { eventBytes?: number; inputBytes?: number }) {
  const store = sqliteStore(join(testDir('payload-limits'), 'state.db'));
  const errors: RuntimeError[] = [];
  const rt: Runtime = await createRuntime({
    store,
    machines: lifecycles,
    onError: (e) => errors.push(e),
    ...(limits && { limits }),
  });
  return { rt, store, errors };
}

describe('payload limits', () => {
  it('refuse an event over 1 MiB by default, flat or nested, sent or dispatched, and keep nothing of it', async () => {
    const { rt, store, errors } = await runtime();
    const { runId } = await rt.start('execution');
    const huge = 'x'.repeat(10 * MiB);

    for (const event of [
      { type: 'ENQUEUE', note: huge },
      { type: 'ENQUEUE', detail: { note: huge } },
    ]) {
      const refused = await rt.dispatch(runId, event).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(PayloadTooLargeError);
      expect(refused).toMatchObject({ what: 'event', limit: MiB });
      expect((refused as PayloadTooLargeError).bytes).toBeGreaterThan(10 * MiB);
      expect((refused as Error).message).toMatch(
        /^The event is \d+ bytes as JSON, over the limit of 1048576 bytes\. .*createRuntime\(\{ limits: \{ eventBytes \} \}\)/,
      );
    }
    rt.send(runId, { type: 'ENQUEUE', note: huge });
    expect(errors.map((e) => e.error.name)).toEqual(['PayloadTooLargeError']);
    // Multi-byte characters count as the bytes they take: 400 Ki of a 3-byte character is over 1 MiB.
    await expect(rt.dispatch(runId, { type: 'ENQUEUE', note: '€'.repeat(400 * 1024) })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    );

    await rt.flush();
    expect((await store.load(runId))!.seq).toBe(0);
    expect(await rt.history(runId)).toEqual([]);
    // Just under the limit is applied.
    const applied = await rt.dispatch(runId, { type: 'ENQUEUE', note: 'y'.repeat(MiB - 100) });
    expect(applied.seq).toBe(1);
    await rt.close();
    await store.close();
  });

  it("refuse a start's input over the limit, storing no run", async () => {
    const { rt, store } = await runtime({ inputBytes: 1000 });
    const refused = await rt
      .start('execution', { id: 'big', input: { blob: 'z'.repeat(2000) } })
      .catch((e: Error) => e);
    expect(refused).toBeInstanceOf(PayloadTooLargeError);
    expect((refused as Error).message).toMatch(
      /^The run's input is 2011 bytes as JSON, over the limit of 1000 bytes\. .*inputBytes/,
    );
    expect(await store.load('big')).toBeUndefined();
    await rt.close();
    await store.close();
  });

  it('are raised or lowered with createRuntime({ limits }), and a limit that is not a byte count is refused', async () => {
    const { rt, store } = await runtime({ eventBytes: 64 });
    const { runId } = await rt.start('execution');
    await expect(rt.dispatch(runId, { type: 'ENQUEUE', note: 'n'.repeat(64) })).rejects.toMatchObject({
      name: 'PayloadTooLargeError',
      limit: 64,
    });
    expect((await rt.dispatch(runId, { type: 'ENQUEUE' })).seq).toBe(1);
    await rt.close();

    for (const limits of [{ eventBytes: 0 }, { inputBytes: 1.5 }, { eventBytes: '1MB' }]) {
      await expect(createRuntime({ store, machines: lifecycles, limits: limits as never })).rejects.toThrow(
        InvalidArgumentError,
      );
    }
    await store.close();
  });
});
