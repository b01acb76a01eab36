import type { Lifecycles } from '../../machines/lifecycle.js';
import { StoreFullError, StoreReadOnlyError } from '../stores/store-errors.js';
import type { Store, StoredRun } from '../stores/store.js';
import type { Channels } from './channels.js';
import { indexFingerprint, indexKeys } from './index-keys.js';
import { migrate } from './migrate.js';

/**
 * Brings the store's index keys up to each lifecycle's declaration (see `Store.syncIndex`).
 * Resolves with the machines whose index could not be brought up to date (a read-only store, a
 * full disk): they are listed by scanning.
 */
export async function syncIndexes(store: Store, machines: Lifecycles, channels: Channels): Promise<Set<string>> {
  const stale = new Set<string>();
  if (!store.syncIndex) return stale;
  for (const [machine, lifecycle] of Object.entries(machines)) {
    const fingerprint = indexFingerprint(lifecycle);
    if (!fingerprint) continue;
    const keysOf = (run: StoredRun) => {
      try {
        return indexKeys(lifecycle, migrate(run, lifecycle).snapshot as never) ?? {};
      } catch (error) {
        // A run this runtime cannot read (no migration from its version) is listed under no key.
        channels.log(run.runId, 'warn', `not indexed: ${(error as Error).message}`);
        return {};
      }
    };
    let count: number;
    try {
      count = await store.syncIndex(machine, fingerprint, keysOf);
    } catch (error) {
      // A store that cannot be written now (opened read-only, a full disk) still reads: its stale
      // index is not used, the runs are scanned instead, so a read command works on any store.
      if (!(error instanceof StoreReadOnlyError || error instanceof StoreFullError)) throw error;
      stale.add(machine);
      channels.log(
        '',
        'info',
        `the ${machine} index is not up to date and cannot be rewritten now (${error.message}); its runs are scanned instead`,
      );
      continue;
    }
    if (count) channels.log('', 'info', `indexed ${count} ${machine} runs under their lifecycle's keys`);
  }
  return stale;
}
