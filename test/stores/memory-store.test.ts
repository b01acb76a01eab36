import { memoryStore } from '../../src/stores/memory/memory-store.js';
import { storeConformance, type StoreHarness } from './conformance.js';
import { leaseConformance } from './lease-conformance.js';

const memoryHarness: StoreHarness = {
  name: 'memory',
  durable: false,
  async fresh() {
    const store = memoryStore();
    return { store, reopen: async () => store, warnings: () => [], dispose: () => store.close() };
  },
};
storeConformance(memoryHarness);
leaseConformance(memoryHarness);
