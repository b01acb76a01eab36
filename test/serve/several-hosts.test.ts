/**
 * Several `statewright serve` processes on one SQLite file, as a user runs them: each named by
 * --host-id with its own server file, a taken id refused, the API's 409 naming the host that holds
 * a run, the CLI sending on to that host, status and explain naming holder and epoch, a killed
 * host's run taken over by the other, and --hibernate-after 0 putting an idle run to sleep.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { api, startServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const cli = (cwd: string, ...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });
/** The run as the API lists it (read from the store, with its lease as stored). */
const listed = async (url: string, runId: string) =>
  ((await api(url, 'GET', '/api/runs')).body.runs as Array<{ runId: string; [key: string]: any }>).find(
    (run) => run.runId === runId,
  );

describe('several serve processes on one store', () => {
  it("name their hosts, keep a server file each, answer 409 for a run the other holds, and take over a killed host's run", async () => {
    const cwd = testDir('several-hosts');
    const store = `sqlite:${join(cwd, 'state.db')}`;
    const hosts = ['--lease-ttl', '1500', '--hibernate-after', 'off', '--store', store];
    const a = await startServeProcess(cwd, ['--host-id', 'a', ...hosts, '--create']);
    const b = await startServeProcess(cwd, ['--host-id', 'b', ...hosts]);
    expect(a.stdout()).toMatch(
      /^host a: lease ttl 1500 ms \(another host takes its runs over this long after it stops renewing\); every hosted run stays in memory$/m,
    );
    expect(b.stdout()).toMatch(/^host b: lease ttl 1500 ms/m);
    expect(readdirSync(join(cwd, 'state.db.serve')).sort()).toEqual(['a.json', 'b.json']);

    // A third host under a live id is refused before it claims anything.
    const twin = await cli(cwd, 'serve', '--port', '0', '--host-id', 'a', ...hosts);
    expect([twin.exitCode, twin.stderr]).toEqual([
      1,
      expect.stringMatching(
        new RegExp(
          `^statewright: Host id 'a' is taken: the statewright serve at ${a.url.replace(/[.]/g, '\\.')} \\(pid ${a.child.pid}\\) runs under it on this store\\. .* give this one another --host-id, or stop that one first\\.$`,
        ),
      ),
    ]);
    expect(readdirSync(join(cwd, 'state.db.serve')).sort()).toEqual(['a.json', 'b.json']);

    expect(await api(a.url, 'GET', '/api/host')).toMatchObject({
      status: 200,
      body: {
        hostId: 'a',
        pid: a.child.pid,
        leases: true,
        leaseTtlMs: 1500,
        hibernateAfterMs: false,
        held: 0,
        hosts: 1,
      },
    });
    expect(await api(a.url, 'POST', '/api/runs', { machine: 'execution', id: 'j1' })).toMatchObject({
      status: 201,
      body: { run: { runId: 'j1' } },
    });
    expect(await listed(b.url, 'j1')).toMatchObject({
      lease: { holder: 'a', state: 'held', epoch: 1, expired: false },
      wakeAt: null,
    });
    expect((await api(a.url, 'GET', '/api/host')).body.held).toBe(1);
    // b holds nothing, a holds j1: two hosts share the store, so the view shows who holds each run.
    expect((await api(b.url, 'GET', '/api/host')).body).toMatchObject({ held: 0, hosts: 2 });
    // The run a hosts, read from a: its lease as the store has it, renewals included.
    const hosted = (await api(a.url, 'GET', '/api/runs/j1')).body.run;
    expect(hosted).toMatchObject({ lease: { holder: 'a', state: 'held', epoch: 1, expired: false }, wakeAt: null });
    expect(hosted.lease.heartbeatAgeMs).toBeGreaterThanOrEqual(0);

    // b does not host what a holds: a typed 409 naming a.
    const refused = await api(b.url, 'POST', '/api/runs/j1/events', { event: { type: 'ENQUEUE' } });
    expect(refused).toMatchObject({
      status: 409,
      body: {
        error: 'RunHeldError',
        runId: 'j1',
        holder: 'a',
        lease: { holder: 'a', state: 'held', epoch: 1 },
        message: expect.stringMatching(/^Run 'j1' is hosted by 'a' \(epoch 1, /),
      },
    });
    expect((await api(b.url, 'GET', '/api/runs/j1/explain')).body.verdict).toMatch(
      /^hosted by the live host 'a' \(epoch 1, last heartbeat .* ago; send its events there\): nothing will move it without an outside event: ENQUEUE/,
    );

    // The CLI sent to b is sent on to a, whose server file is beside the store.
    const sent = await cli(cwd, 'send', 'j1', '{"type":"ENQUEUE"}', '--server', b.url, '--store', store);
    expect([sent.exitCode, sent.stderr, sent.stdout]).toEqual([0, '', `j1: queued (active, 1 events, on ${a.url})`]);
    const status = (await cli(cwd, 'status', '--store', store)).stdout.split('\n');
    expect(status[0]).toMatch(/\sHOLDER\s+EPOCH\s+HEARTBEAT$/);
    expect(status[1]).toMatch(/^j1\s+execution\s+queued\s+active\s+1\s+.*\sa\s+1\s+(\d+ ms|\d+\.\d s) ago$/);

    // a dies: b's sweep takes j1 over once a's lease runs out, at the next epoch.
    await a.stop('SIGKILL');
    const taken = await until('b to take j1 over', async () => {
      const run = await listed(b.url, 'j1');
      return run?.lease?.holder === 'b' ? run : undefined;
    });
    expect(taken).toMatchObject({ state: 'queued', seq: 1, lease: { holder: 'b', state: 'held', epoch: 2 } });
    // The CLI finds only b now (a's file names a dead process), and b hosts the run.
    const moved = await cli(cwd, 'send', 'j1', '{"type":"START"}', '--store', store);
    expect([moved.exitCode, moved.stderr, moved.stdout]).toEqual([
      0,
      '',
      `j1: running (active, 2 events, on ${b.url})`,
    ]);
    // b is the one host left: its lease is said only when asked (--verbose).
    expect((await cli(cwd, 'explain', 'j1', '--store', store)).stdout).not.toMatch(/^host: /m);
    const explained = (await cli(cwd, 'explain', 'j1', '--verbose', '--store', store)).stdout;
    expect(explained).toMatch(/^host: 'b' holds it at epoch 2, until \S+ \(last heartbeat .* ago, at \S+\)$/m);
    expect(await b.stop('SIGTERM')).toBe(0);
    expect(readdirSync(join(cwd, 'state.db.serve'))).toEqual(['a.json']);
  });

  it('--hibernate-after 0 lets go of an idle run at once; its next event wakes it', async () => {
    const cwd = testDir('several-hosts');
    const store = `sqlite:${join(cwd, 'state.db')}`;
    const host = await startServeProcess(cwd, [
      '--host-id',
      'sleepy',
      '--lease-ttl',
      '2000',
      '--hibernate-after',
      '0',
      '--store',
      store,
      '--create',
    ]);
    expect(host.stdout()).toMatch(
      /^host sleepy: lease ttl 2000 ms .*; runs idle 0 ms leave memory until their next event or deadline$/m,
    );
    expect(await api(host.url, 'GET', '/api/host')).toMatchObject({ body: { hostId: 'sleepy', hibernateAfterMs: 0 } });
    await api(host.url, 'POST', '/api/runs', { machine: 'execution', id: 'j1' });
    const asleep = await until('j1 to go to sleep', async () => {
      const run = await listed(host.url, 'j1');
      return run?.lease?.state === 'released' ? run : undefined;
    });
    expect(asleep.lease).toMatchObject({ holder: 'sleepy', epoch: 1 });
    expect((await api(host.url, 'GET', '/api/runs/j1')).body.run.lease).toMatchObject({
      holder: 'sleepy',
      state: 'released',
      epoch: 1,
    });
    expect((await cli(cwd, 'status', '--verbose', '--store', store)).stdout.split('\n')[1]).toMatch(
      /\ssleepy \(asleep\)\s+1\s/,
    );
    const woken = await api(host.url, 'POST', '/api/runs/j1/events', { event: { type: 'ENQUEUE' } });
    expect(woken).toMatchObject({ status: 200, body: { run: { state: 'queued', seq: 1 } } });
    // Claimed anew to wake (epoch 2); idle again at once, it may already be asleep once more.
    expect(await listed(host.url, 'j1')).toMatchObject({
      lease: { holder: 'sleepy', state: expect.stringMatching(/^(held|released)$/), epoch: 2 },
    });
    expect(await host.stop('SIGTERM')).toBe(0);
  });
});
