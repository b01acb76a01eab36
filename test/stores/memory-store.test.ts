import { memoryStore } from '../../src/stores/memory-store.js';
import { storeConformance } from './conformance.js';

storeConformance({
  name: 'memory',
  durable: false,
  async fresh() {
    const store = memoryStore();
    return { store, reopen: async () => store, warnings: () => [], dispose: () => store.close() };
  },
});
