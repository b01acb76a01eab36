/** The one Postgres every system runs on, and a fresh schema for each. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const postgresUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** A schema name no other run or system uses. */
export const freshSchema = (system: string) => `peers_${system}_${randomBytes(4).toString('hex')}`;

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Fails before anything starts, saying how to get a server, when none answers at `postgresUrl`. */
export async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `No Postgres answers at ${postgresUrl} (${(error as Error).message}). The peers run on one: start a server with ` +
        `trust auth and a database 'test' on 127.0.0.1:5432, or point DATABASE_URL at one.`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
