/**
 * The stores the scale benchmark seeds, named so a child process can open the same one:
 * `sqlite:<file>` (a file in a temporary folder) or `postgres:<schema>` (a fresh schema of the
 * test database, DATABASE_URL or 127.0.0.1:5432/test). Each is removed by `removeStore`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { dropSchema, freshSchema, url } from '../../test/stores/test-postgres.js';
import { postgresStore, sqliteStore, type Store } from '../../src/stores/index.js';

export type StoreKind = 'sqlite' | 'postgres';

/** A name for a new, empty store of `kind`. */
export function newStoreName(kind: StoreKind): string {
  return kind === 'sqlite' ? `sqlite:${join(mkdtempSync(join(tmpdir(), 'statewright-scale-')), 'state.db')}` : `postgres:${freshSchema()}`;
}

export async function openStore(name: string): Promise<Store> {
  const [kind, location] = splitName(name);
  return kind === 'sqlite' ? sqliteStore(location) : postgresStore({ connectionString: url, schema: location });
}

export async function removeStore(name: string): Promise<void> {
  const [kind, location] = splitName(name);
  if (kind === 'sqlite') rmSync(dirname(location), { recursive: true, force: true });
  else await dropSchema(location);
}

function splitName(name: string): [StoreKind, string] {
  const colon = name.indexOf(':');
  const kind = name.slice(0, colon);
  if (colon < 0 || (kind !== 'sqlite' && kind !== 'postgres')) throw new Error(`Unknown store '${name}': expected sqlite:<file> or postgres:<schema>.`);
  return [kind, name.slice(colon + 1)];
}
