/**
 * `GET /api/host`'s `hosts`: how many live hosts hold runs of the store, this one counted always,
 * as status and explain count them (src/explain/shared-hosts.ts): a holder whose process on this
 * machine ended is no host; one on another machine is, until its lease is taken over.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { thisHost } from '../../src/os/process-identity.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { apiApp } from '../../src/serve/api-app.js';
import { StepStreams } from '../../src/serve/step-stream.js';
import { sqliteStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

describe('the hosts GET /api/host counts', () => {
  it('counts live holders and this host, not a holder whose process ended', async () => {
    const dir = testDir('host-count');
    const store = sqliteStore(join(dir, 'state.db'));
    const runtime: Runtime = await createRuntime({ store, machines: lifecycles });
    try {
      const app = apiApp({
        runtime,
        start: (machine, options) => runtime.start(machine, options),
        steps: new StepStreams(runtime),
        guard: { boundHost: '127.0.0.1' },
        uiDir: dir,
      });
      const hosts = async () =>
        ((await (await app.request('http://127.0.0.1/api/host', { headers: { host: '127.0.0.1' } })).json()) as any)
          .hosts;
      await runtime.start('execution', { id: 'j1' });
      await runtime.start('execution', { id: 'j2' });
      await runtime.unload('j1');
      await runtime.unload('j2');
      expect(await hosts()).toBe(1);
      const now = Date.now();
      const gone = {
        id: 'gone',
        pid: spawnSync(process.execPath, ['-e', '']).pid!,
        pidStart: 'gone',
        host: thisHost(),
      };
      await store.leases!.claimRun('j1', gone, { now, ttlMs: 3_600_000 });
      expect(await hosts()).toBe(1);
      await store.leases!.claimRun(
        'j2',
        { id: 'b', pid: 4242, pidStart: '1', host: 'another-machine' },
        { now, ttlMs: 3_600_000 },
      );
      expect(await hosts()).toBe(2);
    } finally {
      await runtime.close();
      await store.close();
    }
  });
});
