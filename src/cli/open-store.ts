import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Option } from 'commander';
import type { JsonFileStoreOptions } from '../stores/json-file/json-file-store.js';
import { DEFAULT_SQLITE_PATH } from '../stores/sqlite/sqlite-path.js';
import type { Store } from '../stores/store.js';
import { postgresKey, postgresTarget } from './postgres-target.js';
import { UsageError } from './usage-error.js';

const STORES = `sqlite:<file> (the default is sqlite:${DEFAULT_SQLITE_PATH}), json:<dir>, postgres:<url> (or postgres alone for DATABASE_URL and the PG* variables; ?schema=<name> in either picks the schema) or memory`;

/**
 * `--store`, for every command that opens the store (one Option object per command). `fallback:
 * false` for a command that opens a store only when `--store` names one (check).
 */
export const storeOption = ({ fallback = true } = {}) =>
  new Option(
    '--store <store>',
    `where the runs are kept: ${STORES}${fallback ? "; without --store, the one $STATEWRIGHT_STORE names, else the config's store" : ''}`,
  );

/** `--create`, beside `--store`: a store named by path is opened only if it exists, unless this is given. */
export const createOption = () =>
  new Option(
    '--create',
    'make the store --store names if it does not exist yet (without it, a path that names nothing is refused: a typo would give an empty store)',
  );

/** What a `--store` value names. */
export interface StoreSpec {
  readonly kind: string;
  readonly where: string;
  readonly value: string;
}

export function parseStoreSpec(spec: string | undefined): StoreSpec {
  const value = spec ?? `sqlite:${DEFAULT_SQLITE_PATH}`;
  const colon = value.indexOf(':');
  const [kind, where] = colon < 0 ? [value, ''] : [value.slice(0, colon), value.slice(colon + 1)];
  return { kind, where: kind === 'sqlite' ? where || DEFAULT_SQLITE_PATH : where, value };
}

/** Whether the store is a file of this machine (sqlite, json): its hosts then run here, and leave their server files beside it. */
export function isLocalStore(spec: string | undefined): boolean {
  const { kind } = parseStoreSpec(spec);
  return kind === 'sqlite' || kind === 'json';
}

/**
 * Opens the store a `--store` value names. With `create: false` a sqlite file or json folder that
 * does not exist is refused (the default store is always made, so a fresh checkout just works).
 */
export async function openStore(
  spec: string | undefined,
  options: Pick<JsonFileStoreOptions, 'readOnly' | 'onCorruption'> & { create?: boolean } = {},
): Promise<Store> {
  const { kind, where, value } = parseStoreSpec(spec);
  if (
    options.create === false &&
    spec !== undefined &&
    (kind === 'sqlite' || (kind === 'json' && where)) &&
    !existsSync(where)
  ) {
    // Typed or set in the environment (run-cli.ts puts it in --store): the message names where it was given.
    const named = spec === (process.env.STATEWRIGHT_STORE || undefined) ? 'STATEWRIGHT_STORE=' : '--store ';
    throw new UsageError(
      `No store at ${resolve(where)}: ${named}${value} names nothing that exists. Check the path for a typo, or give --create to make a new store there (start, send, status, serve and demo take it).`,
    );
  }
  // Each kind's module is loaded when named: the CLI does not load SQLite and pg for every command.
  if (kind === 'memory') return (await import('../stores/memory/memory-store.js')).memoryStore();
  if (kind === 'sqlite')
    return (await import('../stores/sqlite/sqlite-store.js')).sqliteStore(where, {
      readOnly: options.readOnly ?? false,
    });
  if (kind === 'postgres' || kind === 'postgresql') {
    return (await import('../stores/postgres/postgres-store.js')).postgresStore(postgresTarget(where, value));
  }
  if (kind === 'json') {
    if (!where) throw new UsageError('--store json: needs a folder, e.g. json:.statewright/runs');
    return (await import('../stores/json-file/json-file-store.js')).jsonFileStore(where, {
      readOnly: options.readOnly ?? false,
      ...(options.onCorruption && { onCorruption: options.onCorruption }),
    });
  }
  throw new UsageError(`Unknown store '${value}'. Use --store ${STORES}.`);
}

/** The store as a command's `--store` and `--create` ask for it. */
export const storeOpener =
  (
    values: { store?: string; create?: boolean },
    options: Pick<JsonFileStoreOptions, 'readOnly' | 'onCorruption'> = {},
  ) =>
  () =>
    openStore(values.store, { ...options, create: values.create === true });

/**
 * The files servers keep for a store, beside it: `<store>.serve/` (a file per host saying where its
 * API is) and `<store>.handover.json` (whose runs it handed over on a graceful stop), and `home`,
 * the folder for its services' files. A Postgres store has no path: its files go under
 * .statewright/, named by a hash of the URL and schema. A memory store lives in one process, so it has no files.
 */
export function storeFiles(spec: string | undefined): { serverDir?: string; handOverFile?: string; home: string } {
  const { kind, where, value } = parseStoreSpec(spec);
  if (kind === 'memory') return { home: resolve('.statewright') };
  const base =
    kind === 'sqlite' || kind === 'json'
      ? resolve(where)
      : resolve(
          '.statewright',
          `postgres-${createHash('sha256').update(postgresKey(where, value)).digest('hex').slice(0, 12)}`,
        );
  return { serverDir: `${base}.serve`, handOverFile: `${base}.handover.json`, home: dirname(base) };
}
