/**
 * Counts what each system asks of its database per step, by wrapping the drivers every system here
 * goes through, in every copy of them installed (the repository's and this folder's): `pg`'s
 * `Client.prototype.query` (one call, one round trip) and better-sqlite3's statements and `exec`
 * (its transactions send BEGIN and COMMIT as statements too). A write commit is a transaction that
 * wrote a row, or a write outside any: on Postgres it waits for one WAL flush (fdatasync here;
 * concurrent commits may share one), on SQLite in WAL mode one fsync of the WAL with
 * synchronous=FULL and none with NORMAL (the WAL is synced at checkpoints). Installed before any
 * store opens, it counts only inside `countWork`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Work {
  statements: number;
  writeCommits: number;
}

let tally: Work | undefined;

const WRITE = /^\s*(insert|replace|update|delete|merge|upsert|create|alter|drop|truncate)\b/i;
const CTE_WRITE = /^\s*with\b[\s\S]*\b(insert|update|delete)\b/i;
/** A SELECT of a function that writes: statewright's batch commit (`commit_steps`, see src/stores/postgres/postgres-schema.ts). */
const FUNCTION_WRITE = /^\s*select\s+[\w.]*\bcommit_steps\s*\(/i;
/** Comments before a statement (statewright names its commits with one) say nothing of what it does. */
const LEADING_COMMENTS = /^(\s*(\/\*[\s\S]*?\*\/|--[^\n]*\n))*/;
const writes = (sql: string) => {
  const statement = sql.replace(LEADING_COMMENTS, '');
  return WRITE.test(statement) || CTE_WRITE.test(statement) || FUNCTION_WRITE.test(statement);
};

/** Per connection: inside BEGIN ... COMMIT, and whether that transaction wrote. */
const transactions = new WeakMap<object, { open: boolean; wrote: boolean }>();

/** Counts one statement sent on `connection` (better-sqlite3 sends its transactions' BEGIN and COMMIT as statements too). */
function count(connection: object, sql: string) {
  if (!tally) return;
  tally.statements++;
  const tx = transactions.get(connection) ?? { open: false, wrote: false };
  transactions.set(connection, tx);
  if (/^\s*(begin|start transaction)\b/i.test(sql)) Object.assign(tx, { open: true, wrote: false });
  else if (/^\s*(commit|end)\b/i.test(sql)) {
    if (tx.wrote) tally.writeCommits++;
    Object.assign(tx, { open: false, wrote: false });
  } else if (/^\s*rollback\s*$/i.test(sql)) Object.assign(tx, { open: false, wrote: false });
  else if (writes(sql)) {
    if (tx.open) tx.wrote = true;
    else tally.writeCommits++;
  }
}

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

function wrapPg(pg: { Client: { prototype: Record<string, unknown> } }) {
  const query = pg.Client.prototype.query as AnyFunction;
  pg.Client.prototype.query = function (this: object, config: unknown, ...rest: unknown[]) {
    count(this, typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? ''));
    return query.call(this, config, ...rest);
  };
}

function wrapBetterSqlite(Database: {
  new (file: string): { prepare(sql: string): object; close(): void };
  prototype: Record<string, unknown>;
}) {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method] as AnyFunction;
    statement[method] = function (this: { source: string; database: object }, ...args: unknown[]) {
      count(this.database, this.source);
      return original.apply(this, args);
    };
  }
  const exec = Database.prototype.exec as AnyFunction;
  Database.prototype.exec = function (this: object, sql: unknown) {
    count(this, String(sql));
    return exec.call(this, sql);
  };
}

/** Wraps each distinct copy of the drivers that the systems here load. */
export function installWorkCounter(): void {
  const here = dirname(fileURLToPath(import.meta.url));
  const from = [
    join(here, 'package.json'),
    join(here, '../../package.json'),
    join(here, 'node_modules/@dbos-inc/dbos-sdk/package.json'),
    join(here, 'node_modules/@langchain/langgraph-checkpoint-postgres/package.json'),
    join(here, 'node_modules/@langchain/langgraph-checkpoint-sqlite/package.json'),
  ];
  const seen = new Set<string>();
  for (const file of from) {
    const require = createRequire(file);
    for (const [name, wrap] of [
      ['pg', wrapPg],
      ['better-sqlite3', wrapBetterSqlite],
    ] as const) {
      const path = require.resolve(name);
      if (seen.has(path)) continue;
      seen.add(path);
      (wrap as (module: unknown) => void)(require(name));
    }
  }
}

/** Runs `fn` and returns what it asked of the databases, divided by `steps`. */
export async function countWork(steps: number, fn: () => Promise<void>): Promise<Work> {
  tally = { statements: 0, writeCommits: 0 };
  try {
    await fn();
    return { statements: tally.statements / steps, writeCommits: tally.writeCommits / steps };
  } finally {
    tally = undefined;
  }
}
