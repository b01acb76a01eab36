/**
 * `--store postgres://…?schema=NAME`: the schema the tables live in, so that several sets of runs
 * (or several test runs) share one database without seeing each other.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { openStore } from '../../src/cli/open-store.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';

const withSchema = (schema: string) => `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;

it.skipIf(skipPostgres)('keeps the runs in the schema the URL names, and nowhere else', async () => {
  requirePostgres();
  const schema = freshSchema();
  const store = await openStore(withSchema(schema));
  try {
    await store.commit([{ run: { runId: 'r-1', machine: 'execution', version: 1, status: 'active', state: 'pending', snapshot: {}, input: {}, seq: 0, owner: undefined, createdAt: 1, updatedAt: 1 }, expectedSeq: undefined }]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT run_id FROM ${schema}.runs`);
      expect(rows).toEqual([{ run_id: 'r-1' }]);
    } finally {
      await client.end();
    }
  } finally {
    await store.close();
    await dropSchema(schema);
  }
});

it('refuses an empty schema parameter, saying what to give', async () => {
  await expect(openStore(withSchema(''))).rejects.toThrow(UsageError);
  await expect(openStore(withSchema(''))).rejects.toThrow(/'schema=' names no schema/);
});
