/**
 * `statewright status` and `explain` on a store with leases (SQLite), as a user runs them: each
 * run's holder, epoch and last heartbeat, in the table and in --json; leases written through the
 * store's own API, as hosts would.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { OwnerInfo } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });
const elsewhere = (id: string): OwnerInfo => ({ id, pid: 4242, pidStart: '1', host: 'another-machine' });

describe('status and explain with leases', () => {
  it("show each run's holder, epoch and heartbeat age, and whether its lease expired or it sleeps", async () => {
    const cwd = testDir('status-leases');
    const path = join(cwd, 'state.db');
    const store = sqliteStore(path);
    const runtime = await createRuntime({
      store,
      machines: lifecycles,
      recover: false,
      owner: { id: 'first', pid: 2 ** 22 + 17, pidStart: 'never' },
    });
    for (const id of ['closed', 'asleep', 'expired', 'held']) await runtime.start('execution', { id });
    // Closed without a hand-over: each lease (epoch 1) ran out at the close, still held.
    await runtime.close();
    const now = Date.now();
    const leases = store.leases!;
    await leases.claimRun('held', elsewhere('host-b'), { now, ttlMs: 3_600_000 });
    await leases.claimRun('expired', elsewhere('host-a'), { now, ttlMs: 10_000 });
    expect(
      await leases.renew('host-a', [{ runId: 'expired', epoch: 2 }], { now: now - 20_000, ttlMs: 10_000 }),
    ).toEqual([]);
    await leases.claimRun('asleep', elsewhere('host-c'), { now, ttlMs: 10_000 });
    await leases.release('host-c', [{ runId: 'asleep', epoch: 2, wakeAt: now + 90_000 }], { now, handedOver: false });
    await store.close();

    const table = (await cli(cwd, 'status', '--store', `sqlite:${path}`)).stdout.split('\n');
    expect(table[0]).toMatch(
      /^RUN\s+MACHINE\s+STATE\s+STATUS\s+EVENTS\s+UPDATED\s+OWNER\s+HOLDER\s+EPOCH\s+HEARTBEAT$/,
    );
    const row = (id: string) => table.find((line) => line.startsWith(`${id} `))!;
    expect(row('held')).toMatch(/\sanother-machine:4242\s+host-b\s+2\s+(\d+ ms|\d+\.\d s) ago$/);
    expect(row('expired')).toMatch(/\sanother-machine:4242\s+host-a\s+2\s+2\d\.\d s ago \(expired\)$/);
    expect(row('asleep')).toMatch(/\shost-c \(asleep\)\s+2\s+(\d+ ms|\d+\.\d s) ago$/);
    expect(row('closed')).toMatch(/\s\(gone\)\s+first\s+1\s+(\d+ ms|\d+\.\d s) ago \(expired\)$/);

    const json = JSON.parse((await cli(cwd, 'status', '--json', '--store', `sqlite:${path}`)).stdout).runs as Array<{
      runId: string;
      lease: any;
      wakeAt: number | null;
    }>;
    const byId = Object.fromEntries(json.map((run) => [run.runId, run]));
    expect(byId.held).toMatchObject({
      lease: { holder: 'host-b', state: 'held', epoch: 2, expiresAt: now + 3_600_000, renewedAt: now, expired: false },
      wakeAt: null,
    });
    expect(byId.expired!.lease).toMatchObject({
      holder: 'host-a',
      state: 'held',
      epoch: 2,
      expiresAt: now - 10_000,
      renewedAt: now - 20_000,
      expired: true,
    });
    expect(byId.expired!.lease.heartbeatAgeMs).toBeGreaterThanOrEqual(20_000);
    expect(byId.asleep).toMatchObject({
      lease: { holder: 'host-c', state: 'released', epoch: 2, expired: false },
      wakeAt: now + 90_000,
    });
    expect(byId.closed).toMatchObject({
      lease: { holder: 'first', state: 'held', epoch: 1, expired: true },
      wakeAt: null,
    });

    const explained = await cli(cwd, 'explain', 'expired', '--store', `sqlite:${path}`);
    expect(explained.stdout).toMatch(
      /^verdict: its host 'host-a' stopped renewing its lease \(expired at .*\): taken over at the next sweep of any host, which applies its recovery rule; then: /m,
    );
    expect(explained.stdout).toMatch(
      /^host: 'host-a' holds it at epoch 2, expired at \S+ \(last heartbeat 2\d\.\d s ago, at \S+\)$/m,
    );
    const asleep = await cli(cwd, 'explain', 'asleep', '--store', `sqlite:${path}`);
    expect(asleep.stdout).toMatch(
      /^verdict: asleep in the store \(released by 'host-c'\): its next event wakes it, or its deadline at .* \(by the sweep of any host\); then: /m,
    );
    expect(asleep.stdout).toMatch(/^wakes at: \S+ \(its next deadline, in the store's timer index\)$/m);
  });
});
