import { memoryStore, type Store } from '../../src/stores/index.js';

/** A store that can be told to fail its next commits, like a full disk would. */
export function failingStore(inner: Store = memoryStore()) {
  let failures = 0;
  const store: Store = {
    ...inner,
    kind: 'failing',
    async commit(commits) {
      if (failures > 0) {
        failures--;
        throw new Error('disk full');
      }
      return inner.commit(commits);
    },
  };
  return { store, failNext: (n = 1) => void (failures = n) };
}
