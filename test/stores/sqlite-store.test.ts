import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite-store.js';
import { StoreCorruptionError } from '../../src/stores/store-errors.js';
import type { Store } from '../../src/stores/store.js';
import { seed, storeConformance } from './conformance.js';
import { tempDir } from './temp-dir.js';

storeConformance({
  name: 'sqlite',
  durable: true,
  async fresh() {
    const dir = await tempDir('sqlite');
    const path = join(dir.path, 'state.db');
    let store: Store = sqliteStore(path);
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = sqliteStore(path);
        return store;
      },
      warnings: () => [],
      async dispose() {
        await store.close();
        await dir.remove();
      },
    };
  },
});

describe('sqlite store: damaged files', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('sqlite-damage');
  });
  afterEach(() => dir.remove());

  const openError = (path: string) => {
    try {
      sqliteStore(path).close();
    } catch (error) {
      return error;
    }
    throw new Error(`expected opening ${path} to fail`);
  };

  it('names the file and the reason when it is not a database', async () => {
    const path = join(dir.path, 'garbled.db');
    await writeFile(path, 'not a database, just words. '.repeat(200));
    const error = openError(path);
    expect(error).toBeInstanceOf(StoreCorruptionError);
    expect(error).toMatchObject({ path, reason: expect.stringContaining('SQLITE_NOTADB') });
    expect((error as Error).message).toContain(path);
  });

  it('names the file when its header is garbled after it held runs', async () => {
    const path = join(dir.path, 'state.db');
    const store = sqliteStore(path);
    await seed(store, 'r1', 3);
    await store.close();
    const bytes = await readFile(path);
    bytes.write('GARBLED HEADER!!', 0);
    await writeFile(path, bytes);
    expect(openError(path)).toMatchObject({ name: 'StoreCorruptionError', path });
  });
});
