/**
 * Where test runs are kept: a fresh, empty store for each path (so one path's runs are never
 * restored into another's), opened again on the same files after every crash, as a restarted
 * process would. SQLite in a temporary folder by default; json-file and memory by name; or the
 * caller's own (`(label) => Store`, one store per label, the same object after a crash).
 */
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonFileStore } from '../stores/json-file/json-file-store.js';
import { memoryStore } from '../stores/memory/memory-store.js';
import { sqliteStore } from '../stores/sqlite/sqlite-store.js';
import type { Store } from '../stores/store.js';

export type TestStoreOption =
  | 'sqlite'
  | 'json-file'
  | 'memory'
  | ((label: string) => Store | Promise<Store>)
  /** A copy of this store's file or folder for each label, its runs as they are (`--against-stored`). */
  | { readonly copyOf: { readonly kind: 'sqlite' | 'json-file'; readonly location: string } };

export interface TestStore {
  /** The store of path `label`: new the first time, the same files again after a crash. */
  open(label: string): Promise<Store>;
  /** Closes every store opened and removes the temporary files. */
  close(): Promise<void>;
}

export function testStore(option: TestStoreOption = 'sqlite'): TestStore {
  const opened: Store[] = [];
  let dir: string | undefined;
  const folder = () => (dir ??= mkdtempSync(join(tmpdir(), 'statewright-test-')));
  const memory = new Map<string, Store>();
  const make = async (label: string): Promise<Store> => {
    if (typeof option === 'function') return option(label);
    if (typeof option === 'object') {
      const { kind, location } = option.copyOf;
      const copy = join(folder(), kind === 'sqlite' ? `${label}.db` : label);
      if (!existsSync(copy)) {
        if (kind === 'json-file') cpSync(location, copy, { recursive: true });
        else {
          copyFileSync(location, copy);
          // What the write-ahead log holds and the file does not yet.
          if (existsSync(`${location}-wal`)) copyFileSync(`${location}-wal`, `${copy}-wal`);
        }
      }
      return kind === 'sqlite' ? sqliteStore(copy, { synchronous: 'NORMAL' }) : jsonFileStore(copy);
    }
    if (option === 'memory') {
      if (!memory.has(label)) memory.set(label, memoryStore());
      return memory.get(label)!;
    }
    if (option === 'json-file') return jsonFileStore(join(folder(), label));
    return sqliteStore(join(folder(), `${label}.db`), { synchronous: 'NORMAL' });
  };
  return {
    async open(label) {
      const store = await make(label);
      if (!opened.includes(store)) opened.push(store);
      return store;
    },
    async close() {
      for (const store of opened.splice(0)) await store.close().catch(() => {});
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
