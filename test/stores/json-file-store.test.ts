import { jsonFileStore, type JsonFileStore } from '../../src/stores/json-file-store.js';
import type { CorruptionReport } from '../../src/stores/store-errors.js';
import { storeConformance } from './conformance.js';
import { tempDir } from './temp-dir.js';

storeConformance({
  name: 'json-file',
  durable: true,
  async fresh() {
    const dir = await tempDir('json');
    const reports: CorruptionReport[] = [];
    const openStore = () => jsonFileStore(dir.path, { onCorruption: (r) => reports.push(r) });
    let store: JsonFileStore = openStore();
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = openStore();
        return store;
      },
      warnings: () => reports,
      async dispose() {
        await store.close();
        await dir.remove();
      },
    };
  },
});
