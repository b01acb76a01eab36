/**
 * What `--store postgres...` names: the connection and the schema. The schema rides in the URL as
 * `?schema=<name>` (which Postgres itself does not take, so it is removed before connecting), in
 * `postgres:<url>` or in DATABASE_URL for `postgres` alone; hosts that share runs name the same one.
 */
import type { PostgresStoreOptions } from '../stores/postgres/postgres-store.js';

export function postgresTarget(
  where: string,
  value: string,
  env: NodeJS.ProcessEnv = process.env,
): Pick<PostgresStoreOptions, 'connectionString' | 'schema'> {
  // `postgres:` alone uses DATABASE_URL or the PG* variables; otherwise the rest is the URL.
  const url = where ? (value.startsWith('postgres:') ? `postgresql:${where}` : value) : env.DATABASE_URL || undefined;
  if (url === undefined) return {};
  const schema = /[?&]schema=([^&#]*)/.exec(url);
  if (!schema) return where ? { connectionString: url } : {};
  const rest = url.replace(/([?&])schema=[^&#]*&?/, '$1').replace(/[?&](#|$)/, '$1');
  return { connectionString: rest, schema: decodeURIComponent(schema[1]!) };
}

/** The same database and schema give the same text, whichever way they were named: what the server files are keyed by. */
export function postgresKey(where: string, value: string, env: NodeJS.ProcessEnv = process.env): string {
  const { connectionString, schema } = postgresTarget(where, value, env);
  return `${connectionString?.replace(/^postgres(ql)?:/, 'postgresql:') ?? 'PG* variables'}#${schema ?? ''}`;
}
