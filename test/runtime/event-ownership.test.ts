/**
 * The runtime applies and stores its own copy of every event: what the caller does with its object
 * afterwards changes nothing, and the machine sees the event as the log keeps it (JSON), so a live
 * run and its replay agree, on every store.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { verifyRun } from '../../src/runtime/replay.js';
import { memoryStore, sqliteStore, type Store } from '../../src/stores/index.js';
import { tempDir } from '../stores/temp-dir.js';

const dirs: Array<{ remove(): Promise<void> }> = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await dir.remove();
});

const stores: Record<string, () => Promise<Store>> = {
  memory: async () => memoryStore(),
  sqlite: async () => {
    const dir = await tempDir('ownership');
    dirs.push(dir);
    return sqliteStore(join(dir.path, 'state.db'));
  },
};

describe.each(Object.keys(stores))("events are the runtime's own (%s store)", (kind) => {
  it('keeps what was sent, whatever the caller does to its object afterwards', async () => {
    const store = await stores[kind]!();
    const rt: Runtime = await createRuntime({ store, machines: lifecycles });
    const { runId } = await rt.start('execution');
    const flat = { type: 'ENQUEUE', note: 'first' };
    const nested = { type: 'START', runner: { labels: ['linux'], host: 'a' } };
    rt.send(runId, flat);
    const started = rt.dispatch(runId, nested);
    flat.note = 'changed';
    nested.runner.labels.push('changed');
    nested.runner.host = 'changed';
    await started;
    const history = await rt.history(runId);
    expect(history.map(({ event: { at, ...rest } }) => rest)).toEqual([
      { type: 'ENQUEUE', note: 'first' },
      { type: 'START', runner: { labels: ['linux'], host: 'a' } },
    ]);
    await rt.close();
    await store.close();
  });

  it('gives the machine the event as the log keeps it, so the run replays to its snapshot', async () => {
    const store = await stores[kind]!();
    const rt = await createRuntime({ store, machines: lifecycles });
    const { runId } = await rt.start('execution');
    const when = new Date(Date.UTC(2026, 10, 21, 8, 0, 0));
    await rt.dispatch(runId, { type: 'ENQUEUE', requested: { when, missing: undefined } });
    const [entry] = await rt.history(runId);
    expect(entry!.event).toMatchObject({ type: 'ENQUEUE', requested: { when: '2026-11-21T08:00:00.000Z' } });
    expect(entry!.event.requested).not.toHaveProperty('missing');
    expect(await verifyRun(store, lifecycles, runId)).toMatchObject({ ok: true });
    await rt.close();
    await store.close();
  });
});
