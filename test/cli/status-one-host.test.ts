/**
 * `statewright status` and `explain` for a store one host has: no words of hosts, epochs or
 * heartbeats unless --verbose or a second live host holds runs; the newest 30 runs, and how many
 * more; a table as wide as the rows when piped.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });
const HOST_WORDS = /HOLDER|EPOCH|HEARTBEAT|OWNER|asleep|expired|epoch|heartbeat|hosted by/;

describe('status and explain on a store one host has', () => {
  it('show the newest 30 runs and say how many more, without host words unless --verbose or a second host', async () => {
    const cwd = testDir('status-one-host');
    const path = join(cwd, 'state.db');
    const store = ['--store', `sqlite:${path}`];
    // This test's process is the one live host: it holds every run's lease while the CLI reads.
    // Each run a millisecond after the one before, so "newest" is one order (two in the same ms are ordered by id).
    const clock = new ManualClock(Date.now());
    const runtime = await createRuntime({ store: sqliteStore(path), machines: lifecycles, recover: false, clock });
    try {
      for (let i = 1; i <= 33; i++) {
        clock.advance(1);
        await runtime.start('execution', { id: `deploy-${String(i).padStart(2, '0')}` });
      }

      const table = (await cli(cwd, 'status', ...store)).stdout.split('\n');
      expect(table[0]).toMatch(/^RUN\s+MACHINE\s+STATE\s+STATUS\s+EVENTS\s+UPDATED$/);
      expect(table.slice(1, 31).map((line) => line.split(' ')[0])).toEqual(
        Array.from({ length: 30 }, (_, i) => `deploy-${String(33 - i).padStart(2, '0')}`),
      );
      expect(table[31]).toBe('3 more runs (33 in all): --limit <n> shows the newest n, --all every run');
      expect(table.join('\n')).not.toMatch(HOST_WORDS);
      expect((await cli(cwd, 'status', '--all', ...store)).stdout.split('\n')).toHaveLength(34);
      expect((await cli(cwd, 'status', '--limit', '32', ...store)).stdout).toMatch(/\n1 more run \(33 in all\)/);

      const verbose = (await cli(cwd, 'status', '--verbose', '--limit', '1', ...store)).stdout.split('\n');
      expect(verbose[0]).toMatch(
        /^RUN\s+MACHINE\s+STATE\s+STATUS\s+EVENTS\s+UPDATED\s+OWNER\s+HOLDER\s+EPOCH\s+HEARTBEAT$/,
      );
      expect(verbose[1]).toMatch(new RegExp(`^deploy-33\\s.*\\s${runtime.owner.id}\\s+1\\s+.* ago$`));

      const explained = (await cli(cwd, 'explain', 'deploy-01', ...store)).stdout;
      expect(explained).toMatch(/^verdict: nothing will move it without an outside event: ENQUEUE, /m);
      expect(explained).not.toMatch(HOST_WORDS);
      const explainedVerbose = (await cli(cwd, 'explain', 'deploy-01', '--verbose', ...store)).stdout;
      expect(explainedVerbose).toMatch(/^verdict: hosted by the live host '.*' \(epoch 1, last heartbeat /m);
      expect(explainedVerbose).toMatch(/^host: '.*' holds it at epoch 1, until /m);

      // A second live host (on another machine) takes a run: now the hosts are told apart.
      await runtime.store.leases!.claimRun(
        'deploy-01',
        { id: 'host-b', pid: 4242, pidStart: '1', host: 'another-machine' },
        { now: Date.now(), ttlMs: 3_600_000, takeFrom: [runtime.owner.id] },
      );
      const shared = (await cli(cwd, 'status', '--all', ...store)).stdout.split('\n');
      expect(shared[0]).toMatch(/\sOWNER\s+HOLDER\s+EPOCH\s+HEARTBEAT$/);
      expect(shared.find((line) => line.startsWith('deploy-01 '))).toMatch(/\shost-b\s+2\s+.* ago$/);
      expect((await cli(cwd, 'explain', 'deploy-01', ...store)).stdout).toMatch(
        /^verdict: hosted by the live host 'host-b' \(epoch 2, /m,
      );
    } finally {
      await runtime.close();
    }
  });
});
