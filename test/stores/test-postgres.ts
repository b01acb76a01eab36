/**
 * The Postgres the tests use: 127.0.0.1:5432, database `test`, or DATABASE_URL. CI has the server;
 * elsewhere, without one, the Postgres tests are skipped. Each test works in a schema of its own.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export const reachable = await (async () => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
})();
if (!reachable && process.env.CI) throw new Error(`CI needs Postgres at ${url} for the Postgres store tests`);

/** A schema name no other test uses. */
export const freshSchema = () => `sw_test_${randomBytes(5).toString('hex')}`;

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
