/**
 * The Postgres the tests use: 127.0.0.1:5432, database `test`, or DATABASE_URL. The Postgres tests
 * never skip silently: without a server they fail saying how to start one, unless
 * STATEWRIGHT_SKIP_POSTGRES=1 is set, which skips them (and the run's summary says so, see
 * test/support/postgres-skip-reporter.ts). Each test works in a schema of its own and drops it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** Whether this run skips the Postgres tests, as asked with STATEWRIGHT_SKIP_POSTGRES=1. */
export const skipPostgres = process.env.STATEWRIGHT_SKIP_POSTGRES === '1';

const unreachable = skipPostgres
  ? undefined
  : await (async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
      try {
        await client.connect();
        await client.end();
        return undefined;
      } catch (error) {
        return (
          `No Postgres answers at ${url} (${(error as Error).message}). The Postgres store tests need one: start a server ` +
          `with trust auth and a database 'test' on 127.0.0.1:5432 (for example \`docker run -d -p 5432:5432 ` +
          `-e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:16\`), or point DATABASE_URL at one, ` +
          `or set STATEWRIGHT_SKIP_POSTGRES=1 to skip these tests.`
        );
      }
    })();

/** Fails the calling test or hook, saying how to start Postgres, when no server answers. */
export function requirePostgres(): void {
  if (unreachable) throw new Error(unreachable);
}

/** A schema name no other test uses. */
export const freshSchema = () => `sw_test_${randomBytes(5).toString('hex')}`;

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
