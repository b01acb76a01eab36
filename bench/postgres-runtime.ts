/**
 * The runtime on Postgres against the server's own speed, each measured in the same run, in
 * alternating rounds (see `interleaved`):
 * - one run, each event awaited, against a raw single-row INSERT (autocommit: one round trip, one
 *   WAL flush), one at a time on one connection;
 * - 100 runs, each awaiting its own events (group commit), against raw single-row INSERTs from 8
 *   connections at once.
 * Needs the Postgres of the tests (DATABASE_URL, else 127.0.0.1:5432 database `test`); each
 * contender works in a schema of its own, dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { lifecycles } from '../machines/index.js';
import { createRuntime, type Runtime } from '../src/runtime/index.js';
import { postgresStore } from '../src/stores/index.js';
import { interleaved, printTable } from './measure.js';

const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const CYCLE = ['RECOVER', 'START'] as const;
const BODY = 'x'.repeat(400); // about the bytes of one event commit

/** Whether the server answers; the bench is skipped (and says why) when it does not. */
async function unreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.end();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const schemas: string[] = [];
const freshSchema = () => {
  const schema = `sw_bench_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  return schema;
};

/** Raw single-row INSERTs, `perClient` in a row on each of `clients` connections at once. */
async function rawInserts(clients: number, perClient: number) {
  const schema = freshSchema();
  const conns = Array.from({ length: clients }, () => new pg.Client({ connectionString: url }));
  for (const c of conns) await c.connect();
  await conns[0]!.query(
    `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.t (id bigserial PRIMARY KEY, body text NOT NULL)`,
  );
  const round = async () => {
    await Promise.all(
      conns.map(async (c) => {
        for (let i = 0; i < perClient; i++)
          await c.query({ name: 'raw-insert', text: `INSERT INTO ${schema}.t (body) VALUES ($1)`, values: [BODY] });
      }),
    );
  };
  const name =
    clients === 1 ? 'raw single-row INSERT (autocommit)' : `raw single-row INSERT, ${clients} clients at once`;
  return { name, opsPerRound: clients * perClient, round, close: () => Promise.all(conns.map((c) => c.end())) };
}

async function runningRun(rt: Runtime): Promise<string> {
  const { runId } = await rt.start('execution');
  await rt.dispatch(runId, { type: 'ENQUEUE' });
  await rt.dispatch(runId, { type: 'START' });
  return runId;
}

/** `runs` runs on one runtime, each dispatching `perRun` events one after another, all runs at once. */
async function runtimeRuns(runs: number, perRun: number) {
  const store = await postgresStore({ connectionString: url, schema: freshSchema() });
  const rt = await createRuntime({ store, machines: lifecycles });
  const ids = await Promise.all(Array.from({ length: runs }, () => runningRun(rt)));
  const cursors = new Map(ids.map((id) => [id, 0]));
  const round = async () => {
    await Promise.all(
      ids.map(async (id) => {
        for (let n = 0; n < perRun; n++) {
          const i = cursors.get(id)!;
          cursors.set(id, i + 1);
          await rt.dispatch(id, { type: CYCLE[i % 2]! });
        }
      }),
    );
  };
  const close = async () => {
    await rt.close();
    await store.close();
  };
  return {
    name:
      runs === 1 ? 'postgres: 1 run, each event awaited' : `postgres: ${runs} runs, each event awaited (group commit)`,
    opsPerRound: runs * perRun,
    round,
    close,
  };
}

async function dropSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

/** Prints the two Postgres tables, or why they were skipped. */
export async function postgresBench(rounds = 7): Promise<void> {
  const why = await unreachable();
  if (why) {
    console.log(`\n### Postgres\n\nSkipped: no Postgres answers at ${url} (${why}). Set DATABASE_URL to measure it.`);
    return;
  }
  try {
    const raw = await rawInserts(1, 500);
    const one = await runtimeRuns(1, 500);
    const [rawRate, oneRate] = await interleaved(raw, one, rounds);
    await Promise.all([raw.close(), one.close()]);
    printTable(
      'One run on Postgres, each event awaited',
      rawRate,
      [rawRate, oneRate],
      'at least 0.8x the raw single-row INSERT',
    );

    const raw8 = await rawInserts(8, 250);
    const many = await runtimeRuns(100, 30);
    const [raw8Rate, manyRate] = await interleaved(raw8, many, rounds);
    await Promise.all([raw8.close(), many.close()]);
    printTable(
      '100 concurrent runs on Postgres, group commit',
      raw8Rate,
      [raw8Rate, manyRate],
      'at least 4x the raw INSERT rate of 8 clients at once',
    );
  } finally {
    await dropSchemas();
  }
}
