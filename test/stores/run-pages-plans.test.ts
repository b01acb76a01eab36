/**
 * A page of runs is an index walk on SQLite and Postgres, whatever the filter: the query plans of
 * `listPage` hold no scan of the table and no sort of every run it finds (on Postgres, only the
 * runs of one millisecond are sorted, `Incremental Sort`, where a page of one status walks an index
 * without the run id). Postgres's plans are taken among 100,000 runs, ANALYZEd.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { pageRuns as postgresPage } from '../../src/stores/postgres/statements.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { countRuns, pageRuns as sqlitePage } from '../../src/stores/sqlite/statements.js';
import type { RunPageQuery } from '../../src/stores/store.js';
import { testDir } from './temp-dir.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from './test-postgres.js';

const AFTER = { createdAt: 50_000, runId: 'r50000' };
const QUERIES: RunPageQuery[] = [
  { limit: 51 },
  { limit: 51, after: AFTER },
  { limit: 51, machine: 'task', after: AFTER },
  { limit: 51, status: 'active', after: AFTER },
  { limit: 51, machine: 'task', status: 'done', after: AFTER },
  { limit: 51, q: 'r4', after: AFTER },
  { limit: 51, machine: 'session', q: 'R1' },
];

describe('pages of runs: query plans', () => {
  it('walks one of the newest-first indexes on SQLite, sorting nothing', async () => {
    const path = `${testDir('page-plans')}/state.db`;
    await sqliteStore(path).close();
    const db = new Database(path, { readonly: true });
    onTestFinished(() => void db.close());
    const planOf = (sql: string, params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);
    for (const query of QUERIES) {
      const { sql, params } = sqlitePage(query, query.after !== undefined);
      const plan = planOf(sql, [...params, ...(query.after ? [query.after.createdAt, query.after.runId] : []), 51]);
      const index = ['runs_newest', query.machine && 'machine', query.status && 'status'].filter(Boolean).join('_by_');
      expect(plan, JSON.stringify(query)).toEqual([
        expect.stringMatching(
          new RegExp(`^(SCAN|SEARCH) runs USING INDEX ${index.replace('machine_by_status', 'machine_status')}\\b`),
        ),
      ]);
    }
    // A count reads each run's row once, and its log only where the row's checkpoint lags behind it.
    const counted = planOf(countRuns({ machine: 'task' }).sql, ['task']).join('; ');
    expect(counted).toContain('SEARCH r USING INDEX runs_newest_by_machine_status (machine=?)');
    expect(counted).toContain('SEARCH e USING INTEGER PRIMARY KEY (rowid=?)');
  });

  describe.skipIf(skipPostgres)('on Postgres', () => {
    beforeAll(requirePostgres);
    it('walks an index backwards among 100,000 runs, never the table', async () => {
      const schema = freshSchema();
      const store = await postgresStore({ connectionString: url, schema });
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      onTestFinished(async () => {
        await admin.end();
        await store.close();
        await dropSchema(schema);
      });
      await admin.query(
        `INSERT INTO ${schema}.runs (run_id, machine, version, status, state, seq, snapshot, input, created_at, updated_at)
         SELECT 'r' || i, (ARRAY['execution', 'task', 'session'])[1 + i % 3], 1, CASE WHEN i % 10 = 0 THEN 'active' ELSE 'done' END,
           's' || (i % 7), 0, '{}', 'null', i / 2, i
         FROM generate_series(0, 99999) AS i`,
      );
      await admin.query(`ANALYZE ${schema}.runs`);
      for (const query of QUERIES) {
        const { text, params } = postgresPage(schema, query);
        const plan = await admin.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, params);
        const nodes = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
        expect(nodes, JSON.stringify(query)).not.toContain('Seq Scan');
        expect(nodes, JSON.stringify(query)).not.toMatch(/"Node Type":"Sort"/);
        expect(nodes, JSON.stringify(query)).toMatch(/"Node Type":"Index (Only )?Scan"/);
        expect(nodes, JSON.stringify(query)).toContain('"Scan Direction":"Backward"');
      }
      // And the store pages through them as the plans say, newest first: two runs a millisecond, every third a task.
      const page = await store.listPage({ limit: 3, machine: 'task', after: AFTER });
      expect([page.runs.map((r) => r.runId), page.next]).toEqual([
        ['r99997', 'r99994', 'r99991'],
        { createdAt: 49995, runId: 'r99991' },
      ]);
    });
  });
});
