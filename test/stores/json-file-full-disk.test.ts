/**
 * A json-file store on a full disk (a small tmpfs, see test/support/small-disk.ts): a commit is
 * refused with StoreFullError, which says so and names the store; the run stays as it was, with its
 * log, snapshot.json and snapshot.json.bak untouched; the store can still be read (also read-only,
 * which needs no write at all); and once space is freed the same commit goes through.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { folderName } from '../../src/stores/json-file/run-log.js';
import { StoreFullError, type CorruptionReport } from '../../src/stores/store-errors.js';
import { fillDisk, smallDisk } from '../support/small-disk.js';
import { row, seed, step } from './conformance.js';

/** Every file of a run's folder with its bytes. */
const folderFiles = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
  );

describe('json-file store on a full disk', () => {
  it('refuses a commit with StoreFullError, keeps the run as it was (with its .bak), and commits again once space is freed', async (context) => {
    const disk = smallDisk(512 * 1024);
    if ('skipped' in disk) return context.skip(disk.skipped);
    const root = join(disk.path, 'store');
    const reports: CorruptionReport[] = [];
    let store = jsonFileStore(root, { onCorruption: (r) => reports.push(r) });
    try {
      await seed(store, 'r', 3);
      const folder = join(root, 'runs', folderName('r'));
      const before = folderFiles(folder);
      expect(Object.keys(before)).toEqual(['events.jsonl', 'snapshot.json', 'snapshot.json.bak']);

      const free = fillDisk(disk.path);
      const refused = await store.commit([step('r', 4)]).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreFullError);
      expect((refused as Error).message).toBe(
        `The disk holding ${root} is full: the commit was refused and nothing of it was kept. Free space on that disk, then retry.`,
      );
      expect(((refused as Error).cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
      // Nothing of it is on disk or in memory, and a new run is refused the same way.
      expect(folderFiles(folder)).toEqual(before);
      expect(await store.load('r')).toEqual(row('r', 3));
      await expect(store.commit([step('r', 4), { run: row('new', 0), expectedSeq: undefined }])).rejects.toBeInstanceOf(
        StoreFullError,
      );
      expect(await store.load('new')).toBeUndefined();

      // Reading needs no space: a read-only store opens and reads the full disk.
      const reader = jsonFileStore(root, { readOnly: true, onCorruption: (r) => reports.push(r) });
      expect(await reader.load('r')).toEqual(row('r', 3));
      expect((await reader.history('r')).map((e) => e.seq)).toEqual([1, 2, 3]);
      await reader.close();

      free();
      await store.commit([step('r', 4)]);
      expect(await store.load('r')).toEqual(row('r', 4));
      await store.close();
      store = jsonFileStore(root, { onCorruption: (r) => reports.push(r) });
      expect(await store.load('r')).toEqual(row('r', 4));
      expect((await store.history('r')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect(reports).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('through the runtime: dispatch rejects with StoreFullError, the run keeps its state, and the same event goes through once space is freed', async (context) => {
    const disk = smallDisk(512 * 1024);
    if ('skipped' in disk) return context.skip(disk.skipped);
    const store = jsonFileStore(join(disk.path, 'store'));
    const runtime = await createRuntime({ store, machines: lifecycles });
    try {
      await runtime.start('execution', { id: 'job' });
      await runtime.dispatch('job', { type: 'ENQUEUE' });
      const free = fillDisk(disk.path);
      await expect(runtime.dispatch('job', { type: 'START' })).rejects.toBeInstanceOf(StoreFullError);
      expect(await runtime.getSnapshot('job')).toMatchObject({ state: 'queued', seq: 1 });
      expect((await store.load('job'))?.seq).toBe(1);
      free();
      await runtime.dispatch('job', { type: 'START' });
      expect(await runtime.getSnapshot('job')).toMatchObject({ state: 'running', seq: 2 });
      expect((await runtime.history('job')).map((e) => e.event.type)).toEqual(['ENQUEUE', 'START']);
    } finally {
      await runtime.close();
      await store.close();
    }
  });

  it('refuses to open a store for writing on a full disk with StoreFullError, and opens it read-only', async (context) => {
    const disk = smallDisk(256 * 1024);
    if ('skipped' in disk) return context.skip(disk.skipped);
    const root = join(disk.path, 'store');
    const store = jsonFileStore(root);
    await seed(store, 'r', 1);
    await store.close();
    fillDisk(disk.path);
    expect(() => jsonFileStore(root)).toThrow(StoreFullError);
    expect(() => jsonFileStore(root)).toThrow(
      /could not be opened for writing \(opened read-only, it can still be read\)/,
    );
    const reader = jsonFileStore(root, { readOnly: true });
    expect(await reader.load('r')).toEqual(row('r', 1));
    await reader.close();
  });
});
