/** `--store postgres...`: the connection and the schema, from the URL or DATABASE_URL. */
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { postgresKey, postgresTarget } from '../../src/cli/postgres-target.js';
import { storeFiles } from '../../src/cli/open-store.js';

const target = (spec: string, env: NodeJS.ProcessEnv = {}) => {
  const colon = spec.indexOf(':');
  return colon < 0 ? postgresTarget('', spec, env) : postgresTarget(spec.slice(colon + 1), spec, env);
};

describe('the Postgres store a --store value names', () => {
  it('takes the schema from ?schema= and leaves the rest of the URL to Postgres', () => {
    expect(target('postgres://app@db:5432/runs')).toEqual({ connectionString: 'postgresql://app@db:5432/runs' });
    expect(target('postgres://app@db/runs?schema=fleet_1')).toEqual({
      connectionString: 'postgresql://app@db/runs',
      schema: 'fleet_1',
    });
    expect(target('postgresql://app@db/runs?sslmode=require&schema=fleet_1')).toEqual({
      connectionString: 'postgresql://app@db/runs?sslmode=require',
      schema: 'fleet_1',
    });
    expect(target('postgres://app@db/runs?schema=fleet_1&sslmode=require')).toEqual({
      connectionString: 'postgresql://app@db/runs?sslmode=require',
      schema: 'fleet_1',
    });
  });

  it('postgres alone: DATABASE_URL with its schema, or the PG* variables', () => {
    expect(target('postgres', { DATABASE_URL: 'postgres://app@db/runs?schema=fleet_2' })).toEqual({
      connectionString: 'postgres://app@db/runs',
      schema: 'fleet_2',
    });
    expect(target('postgres', { DATABASE_URL: 'postgres://app@db/runs' })).toEqual({});
    expect(target('postgres', {})).toEqual({});
  });

  it('keys the server files by database and schema, however they were named', () => {
    const env = { DATABASE_URL: 'postgres://app@db/runs?schema=a' };
    expect(postgresKey('', 'postgres', env)).toBe(
      postgresKey('//app@db/runs?schema=a', 'postgres://app@db/runs?schema=a', env),
    );
    expect(postgresKey('//app@db/runs?schema=a', 'postgres://app@db/runs?schema=a')).not.toBe(
      postgresKey('//app@db/runs?schema=b', 'postgres://app@db/runs?schema=b'),
    );
    expect(storeFiles('postgres://app@db/runs?schema=a').serverDir).not.toBe(
      storeFiles('postgres://app@db/runs?schema=b').serverDir,
    );
    expect(storeFiles('postgres://app@db/runs?schema=a').serverDir).toMatch(
      /\/\.statewright\/postgres-[0-9a-f]{12}\.serve$/,
    );
  });
});

describe.skipIf(skipPostgres)('the CLI on a Postgres schema', () => {
  it('keeps the runs in the schema ?schema= names', async () => {
    requirePostgres();
    const schema = freshSchema();
    onTestFinished(() => dropSchema(schema));
    const cwd = testDir('cli-postgres');
    const bin = new URL('../../bin/statewright.js', import.meta.url).pathname;
    const store = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
    const started = await startCommand(
      process.execPath,
      [bin, 'start', 'execution', '--id', 'pg-1', '--store', store],
      { cwd, reject: false },
    );
    expect([started.exitCode, started.stderr, started.stdout]).toEqual([0, '', 'pg-1: pending']);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query(`SELECT run_id FROM ${schema}.runs`)).rows).toEqual([{ run_id: 'pg-1' }]);
    } finally {
      await client.end();
    }
    const listed = await startCommand(process.execPath, [bin, 'status', '--json', '--store', store], {
      cwd,
      reject: false,
    });
    expect(JSON.parse(listed.stdout).runs.map((r: { runId: string }) => r.runId)).toEqual(['pg-1']);
  });
});
