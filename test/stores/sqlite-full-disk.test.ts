/** A SQLite store whose disk fills up: reads go on, commits are refused with StoreFullError, and resume once there is space. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { StoreFullError } from '../../src/stores/store-errors.js';
import type { Store } from '../../src/stores/store.js';
import { startCommand } from '../support/child-processes.js';
import { fillDisk, smallDisk } from '../support/small-disk.js';
import { step } from './conformance.js';

const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
const cli = (...args: string[]) => startCommand(process.execPath, [bin, ...args], { reject: false });
const CYCLE = [{ type: 'RECOVER' }, { type: 'START' }] as const;

/** A runtime on `path` with run `job` running, its events cycling RECOVER, START. */
async function host(path: string): Promise<{ store: Store; rt: Runtime }> {
  const store = sqliteStore(path);
  const rt = await createRuntime({ store, machines: lifecycles });
  return { store, rt };
}

/** Dispatches to `job` until the disk refuses one; resolves with the refusal and how many were acknowledged. */
async function dispatchUntilRefused(rt: Runtime, from: number): Promise<{ refusal: unknown; acknowledged: number }> {
  for (let n = from; n < from + 5000; n++) {
    try {
      await rt.dispatch('job', CYCLE[n % 2]!);
    } catch (refusal) {
      return { refusal, acknowledged: n - from };
    }
  }
  throw new Error('5000 events fitted on a full disk');
}

describe('sqlite store on a full disk', () => {
  it('refuses a commit with StoreFullError, keeps the run as last acknowledged, reads without writing, and commits again once space is freed', async (context) => {
    const disk = smallDisk(4 << 20);
    if ('skipped' in disk) return context.skip(disk.skipped);
    let free = () => {};
    const path = join(disk.path, 'state.db');
    const { store, rt } = await host(path);
    try {
      await rt.start('execution', { id: 'job' });
      await rt.dispatch('job', { type: 'ENQUEUE' });
      await rt.dispatch('job', { type: 'START' });
      free = fillDisk(disk.path);

      // The WAL may have room left in what it already took: events fit until it needs more.
      const { refusal, acknowledged } = await dispatchUntilRefused(rt, 0);
      expect(refusal).toBeInstanceOf(StoreFullError);
      expect(refusal).toMatchObject({ path, message: expect.stringContaining('Free space on that disk, then retry.') });
      const seq = 2 + acknowledged;
      expect(await store.load('job')).toMatchObject({ seq, state: acknowledged % 2 ? 'recovering' : 'running' });
      expect((await rt.getSnapshot('job')).seq).toBe(seq);
      await expect(rt.dispatch('job', CYCLE[acknowledged % 2]!)).rejects.toBeInstanceOf(StoreFullError);

      // Another process reads the full store: status, history and verify write nothing.
      const status = await cli('status', '--store', `sqlite:${path}`);
      expect([status.exitCode, status.stderr]).toEqual([0, '']);
      expect(status.stdout).toMatch(
        new RegExp(`\\njob\\s+execution\\s+${acknowledged % 2 ? 'recovering' : 'running'}\\s+active\\s+${seq}\\s`),
      );
      const history = await cli('history', 'job', '--store', `sqlite:${path}`);
      expect([history.exitCode, history.stdout.split('\n').length]).toEqual([0, seq]);
      const verify = await cli('verify', '--store', `sqlite:${path}`);
      expect([verify.exitCode, verify.stdout]).toEqual([0, '1 of 1 runs replay to their stored snapshot.']);

      free();
      await rt.dispatch('job', CYCLE[acknowledged % 2]!);
      expect(await store.load('job')).toMatchObject({ seq: seq + 1 });
      expect((await store.history('job')).map((e) => e.seq)).toEqual(Array.from({ length: seq + 1 }, (_, i) => i + 1));
    } finally {
      await rt.close();
      await store.close();
    }
  });

  it('opens a store on a full disk with no other process on it: it reads, refuses commits until opened again with space', async (context) => {
    const disk = smallDisk(4 << 20);
    if ('skipped' in disk) return context.skip(disk.skipped);
    let free = () => {};
    const path = join(disk.path, 'state.db');
    const first = await host(path);
    await first.rt.start('execution', { id: 'job' });
    await first.rt.dispatch('job', { type: 'ENQUEUE' });
    await first.rt.close();
    const written = await first.store.load('job');
    const events = await first.store.history('job');
    // The last connection to close removes the -wal and -shm files: opening needs a new -shm.
    await first.store.close();
    free = fillDisk(disk.path);

    const status = await cli('status', '--store', `sqlite:${path}`);
    expect([status.exitCode, status.stderr]).toEqual([0, '']);
    expect(status.stdout).toMatch(/\njob\s+execution\s+queued\s+active\s+1\s/);

    const full = sqliteStore(path);
    try {
      expect(await full.load('job')).toEqual(written);
      expect(await full.history('job')).toEqual(events);
      const refused = full.commit([step('job', 2)]);
      await expect(refused).rejects.toBeInstanceOf(StoreFullError);
      await expect(refused).rejects.toThrow(/opened while the disk was full/);
    } finally {
      await full.close();
    }

    free();
    const again = await host(path);
    try {
      await again.rt.dispatch('job', { type: 'START' });
      expect(await again.store.load('job')).toMatchObject({ seq: 2, state: 'running' });
    } finally {
      await again.rt.close();
      await again.store.close();
    }
  });
});
