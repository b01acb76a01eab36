/**
 * The stores the scale benchmark seeds, named so a child process can open the same one:
 * `sqlite:<file>` (a file in a temporary folder) or `postgres:<schema>` (a fresh schema of the
 * test database, DATABASE_URL or 127.0.0.1:5432/test). Each is removed by `removeStore`.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { dropSchema, freshSchema, url } from '../../test/stores/test-postgres.js';
import { postgresStore, sqliteStore, type Store } from '../../src/stores/index.js';

export type StoreKind = 'sqlite' | 'postgres';

/** A name for a new, empty store of `kind`. */
export function newStoreName(kind: StoreKind): string {
  return kind === 'sqlite'
    ? `sqlite:${join(mkdtempSync(join(tmpdir(), 'statewright-scale-')), 'state.db')}`
    : `postgres:${freshSchema()}`;
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
  if (colon < 0 || (kind !== 'sqlite' && kind !== 'postgres'))
    throw new Error(`Unknown store '${name}': expected sqlite:<file> or postgres:<schema>.`);
  return [kind, name.slice(colon + 1)];
}

/** What the store takes on disk: the SQLite file with its WAL, or the schema's tables with their indexes. */
export async function storeBytes(name: string): Promise<number> {
  const [kind, location] = splitName(name);
  if (kind === 'sqlite')
    return [location, `${location}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [location],
    );
    return Number(rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

/**
 * Brings a freshly seeded store to the state a host meets in service. On Postgres: VACUUM ANALYZE,
 * as autovacuum would soon after a bulk load. Seeding leaves every run's first row version (held,
 * before its release) in the partial indexes of held runs until a vacuum, so the sweep would visit
 * a million dead rows; and the planner has no statistics yet. SQLite needs nothing (its sweep names its indexes).
 */
export async function settleStore(name: string): Promise<void> {
  const [kind, location] = splitName(name);
  if (kind === 'sqlite') return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`VACUUM ANALYZE ${location}.runs`);
    await client.query(`VACUUM ANALYZE ${location}.events`);
  } finally {
    await client.end();
  }
}
