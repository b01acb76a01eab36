/** `--store postgres...`: the connection and the schema, from the URL or DATABASE_URL. */
import { describe, expect, it } from 'vitest';
import { postgresKey, postgresTarget } from '../../src/cli/postgres-target.js';
import { storeFiles } from '../../src/cli/open-store.js';

const target = (spec: string, env: NodeJS.ProcessEnv = {}) => {
  const colon = spec.indexOf(':');
  return colon < 0 ? postgresTarget('', spec, env) : postgresTarget(spec.slice(colon + 1), spec, env);
};

describe('the Postgres store a --store value names', () => {
  it('takes the schema from ?schema= and leaves the rest of the URL to Postgres', () => {
    expect(target('postgres://app@db:5432/runs')).toEqual({ connectionString: 'postgresql://app@db:5432/runs' });
    expect(target('postgres://app@db/runs?schema=fleet_1')).toEqual({ connectionString: 'postgresql://app@db/runs', schema: 'fleet_1' });
    expect(target('postgresql://app@db/runs?sslmode=require&schema=fleet_1')).toEqual({ connectionString: 'postgresql://app@db/runs?sslmode=require', schema: 'fleet_1' });
    expect(target('postgres://app@db/runs?schema=fleet_1&sslmode=require')).toEqual({ connectionString: 'postgresql://app@db/runs?sslmode=require', schema: 'fleet_1' });
  });

  it('postgres alone: DATABASE_URL with its schema, or the PG* variables', () => {
    expect(target('postgres', { DATABASE_URL: 'postgres://app@db/runs?schema=fleet_2' })).toEqual({ connectionString: 'postgres://app@db/runs', schema: 'fleet_2' });
    expect(target('postgres', { DATABASE_URL: 'postgres://app@db/runs' })).toEqual({});
    expect(target('postgres', {})).toEqual({});
  });

  it('keys the server files by database and schema, however they were named', () => {
    const env = { DATABASE_URL: 'postgres://app@db/runs?schema=a' };
    expect(postgresKey('', 'postgres', env)).toBe(postgresKey('//app@db/runs?schema=a', 'postgres://app@db/runs?schema=a', env));
    expect(postgresKey('//app@db/runs?schema=a', 'postgres://app@db/runs?schema=a')).not.toBe(postgresKey('//app@db/runs?schema=b', 'postgres://app@db/runs?schema=b'));
    expect(storeFiles('postgres://app@db/runs?schema=a').serverDir).not.toBe(storeFiles('postgres://app@db/runs?schema=b').serverDir);
    expect(storeFiles('postgres://app@db/runs?schema=a').serverDir).toMatch(/\/\.statewright\/postgres-[0-9a-f]{12}\.serve$/);
  });
});
