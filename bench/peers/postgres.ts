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
