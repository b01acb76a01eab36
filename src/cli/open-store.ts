import { Option } from 'commander';
import { DEFAULT_SQLITE_PATH, jsonFileStore, memoryStore, postgresStore, sqliteStore, type Store } from '../stores/index.js';
import { UsageError } from './usage-error.js';

const STORES = `sqlite:<file> (the default is sqlite:${DEFAULT_SQLITE_PATH}), json:<dir>, postgres:<url> (or postgres alone for DATABASE_URL and the PG* variables) or memory`;

/** `--store`, for every command that opens the store (one Option object per command). */
export const storeOption = () => new Option('--store <store>', `where the runs are kept: ${STORES}`);

/** Opens the store a `--store` value names. */
export async function openStore(spec: string | undefined, options: { readOnly?: boolean } = {}): Promise<Store> {
  const value = spec ?? `sqlite:${DEFAULT_SQLITE_PATH}`;
  const colon = value.indexOf(':');
  const [kind, where] = colon < 0 ? [value, ''] : [value.slice(0, colon), value.slice(colon + 1)];
  if (kind === 'memory') return memoryStore();
  if (kind === 'sqlite') return sqliteStore(where || DEFAULT_SQLITE_PATH, { readOnly: options.readOnly ?? false });
  if (kind === 'postgres' || kind === 'postgresql') {
    // `postgres:` alone uses DATABASE_URL or the PG* variables; otherwise the rest is the URL.
    return postgresStore(where ? { connectionString: value.startsWith('postgres:') ? `postgresql:${where}` : value } : {});
  }
  if (kind === 'json') {
    if (!where) throw new UsageError('--store json: needs a folder, e.g. json:.statewright/runs');
    return jsonFileStore(where, { readOnly: options.readOnly ?? false });
  }
  throw new UsageError(`Unknown store '${value}'. Use --store ${STORES}.`);
}
