import { DEFAULT_SQLITE_PATH, memoryStore, sqliteStore, type Store } from '../stores/index.js';
import { UsageError } from './usage-error.js';

export const STORE_HELP = `--store sqlite:<file> (default sqlite:${DEFAULT_SQLITE_PATH}) or memory`;

/** Opens the store a `--store` value names. */
export async function openStore(spec: string | undefined): Promise<Store> {
  const value = spec ?? `sqlite:${DEFAULT_SQLITE_PATH}`;
  const colon = value.indexOf(':');
  const [kind, where] = colon < 0 ? [value, ''] : [value.slice(0, colon), value.slice(colon + 1)];
  if (kind === 'memory') return memoryStore();
  if (kind === 'sqlite') return sqliteStore(where || DEFAULT_SQLITE_PATH);
  throw new UsageError(`Unknown store '${value}'. Use ${STORE_HELP}.`);
}
