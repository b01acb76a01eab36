import { join } from 'node:path';
import { sqliteStore } from '../../src/stores/sqlite-store.js';
import type { Store } from '../../src/stores/store.js';
import { storeConformance } from './conformance.js';
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
