/**
 * The CPU one durable step costs the runtime (#44), beside a bare driver call of about the same size
 * in the same rounds: one run, each event awaited, its CPU (`process.cpuUsage`, user + system) per
 * event, against a single-row insert of about an event commit's bytes (a transaction on SQLite, an
 * autocommit INSERT on Postgres). The difference is the runtime's own work per step: XState's
 * transition, the snapshot and audit serialization, the checksums, the statements beyond the one
 * insert, the notifications. Best of the rounds, which alternate between the two.
 *
 *   npx tsx bench/step-cpu.bench.ts [--steps 4000] [--rounds 3] [--dir <folder for the SQLite files>]
 *
 * `--dir` on a tmpfs (/dev/shm) leaves the fsync out, which is what a CPU profile of a step wants
 * (`node --cpu-prof`); the default folder is on the disk, as a user's store is. Postgres: the tests'
 * server (DATABASE_URL, else 127.0.0.1:5432 database `test`), skipped when none answers.
 *
 * A second table says how much of the runtime's own work is the same work done cold: the runtime on
 * the memory store (XState, the queue, group commit, the answer: everything but the store's
 * statements), its steps alone ("warm") and each right after one bare insert ("after each wait",
 * less the inserts alone). On a virtual machine a step that follows a wait for the disk or the
 * server pays several times the CPU of the same step done back to back.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { lifecycles } from '../machines/index.js';
import { createRuntime, type Runtime } from '../src/runtime/index.js';
import { memoryStore, postgresStore, sqliteStore, type Store } from '../src/stores/index.js';
import { median, printFigures } from './measure.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { steps: { type: 'string' }, rounds: { type: 'string' }, dir: { type: 'string' } },
  strict: false,
});
const STEPS = Number(values.steps ?? 4000);
const ROUNDS = Number(values.rounds ?? 3);
const home = mkdtempSync(join(typeof values.dir === 'string' ? values.dir : tmpdir(), 'statewright-step-cpu-'));
const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const BODY = 'x'.repeat(400); // about the bytes of one event commit
const CYCLE = ['RECOVER', 'START'] as const;

/** CPU microseconds per operation of `work(count)`. */
async function cpuPer(count: number, work: (count: number) => unknown): Promise<number> {
  const before = process.cpuUsage();
  await work(count);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** One running execution run on `store`, and `count` events sent to it one after another, each awaited. */
async function oneRun(store: Store): Promise<{ steps: (count: number) => Promise<void>; close: () => Promise<void> }> {
  const runtime: Runtime = await createRuntime({ store, machines: lifecycles, recover: false });
  const { runId } = await runtime.start('execution');
  await runtime.dispatch(runId, { type: 'ENQUEUE' });
  await runtime.dispatch(runId, { type: 'START' });
  let i = 0;
  return {
    steps: async (count) => {
      for (let n = 0; n < count; n++) await runtime.dispatch(runId, { type: CYCLE[i++ % 2]! });
    },
    close: async () => {
      await runtime.close();
      await store.close();
    },
  };
}

/** Best CPU per step of the runtime and of the raw call, in alternating rounds after one warm-up each. */
async function compare(
  runtime: (count: number) => Promise<void>,
  raw: (count: number) => unknown,
): Promise<{ runtime: number; raw: number }> {
  await runtime(STEPS / 4);
  await raw(STEPS / 4);
  const ours: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(await cpuPer(STEPS, runtime));
    bare.push(await cpuPer(STEPS, raw));
  }
  return { runtime: Math.min(...ours), raw: Math.min(...bare) };
}

/**
 * The memory-store runtime's CPU per step warm (back to back), and right after each bare call
 * `raw(1)`, less the bare calls alone timed in the same round: the median over at least five
 * rounds (a difference of two noisy figures wants more than the best of three).
 */
async function afterEachWait(raw: (count: number) => unknown): Promise<{ warm: number; cold: number }> {
  const run = await oneRun(memoryStore());
  const both = async (count: number) => {
    for (let n = 0; n < count; n++) {
      await raw(1);
      await run.steps(1);
    }
  };
  await both(STEPS / 4);
  const warm: number[] = [];
  const cold: number[] = [];
  for (let round = 0; round < Math.max(ROUNDS, 5); round++) {
    warm.push(await cpuPer(STEPS, run.steps));
    const after = await cpuPer(STEPS, both);
    cold.push(after - (await cpuPer(STEPS, raw)));
  }
  await run.close();
  return { warm: median(warm), cold: median(cold) };
}

const rows: string[][] = [];
const coldRows: string[][] = [];
const coldRow = (wait: string, figures: { warm: number; cold: number }) =>
  coldRows.push([
    wait,
    `${figures.warm.toFixed(1)} µs`,
    `${figures.cold.toFixed(1)} µs`,
    `${(figures.cold / figures.warm).toFixed(1)}x`,
  ]);
const row = (store: string, figures: { runtime: number; raw: number }) =>
  rows.push([
    store,
    `${figures.runtime.toFixed(1)} µs`,
    `${figures.raw.toFixed(1)} µs`,
    `${(figures.runtime - figures.raw).toFixed(1)} µs`,
    `${(figures.raw / figures.runtime).toFixed(2)}x`,
  ]);

const loadBefore = loadavg()[0]!.toFixed(1);
try {
  {
    const run = await oneRun(await sqliteStore(join(home, 'state.db')));
    const db = new Database(join(home, 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const one = db.transaction((body: string) => insert.run(body));
    const inserts = (count: number) => {
      for (let n = 0; n < count; n++) one(BODY);
    };
    row('SQLite', await compare(run.steps, inserts));
    coldRow('a SQLite insert (fsync)', await afterEachWait(inserts));
    db.close();
    await run.close();
  }
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  const unreachable = await probe.connect().then(
    () => undefined,
    (error: Error) => error.message,
  );
  if (unreachable) console.log(`\nPostgres skipped: none answers at ${url} (${unreachable}).`);
  else {
    const schema = `sw_step_${randomBytes(5).toString('hex')}`;
    const run = await oneRun(await postgresStore({ connectionString: url, schema: `${schema}_rt` }));
    await probe.query(
      `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.t (id bigserial PRIMARY KEY, body text NOT NULL)`,
    );
    try {
      const inserts = async (count: number) => {
        for (let n = 0; n < count; n++)
          await probe.query({ name: 'raw-insert', text: `INSERT INTO ${schema}.t (body) VALUES ($1)`, values: [BODY] });
      };
      row('Postgres', await compare(run.steps, inserts));
      coldRow('a Postgres insert (a round trip)', await afterEachWait(inserts));
    } finally {
      await run.close();
      await probe.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP SCHEMA IF EXISTS ${schema}_rt CASCADE`);
      await probe.end();
    }
  }
  printFigures(
    `One run, each event awaited: CPU per step, best of ${ROUNDS} rounds of ${STEPS} (load average ${loadBefore} -> ${loadavg()[0]!.toFixed(1)})`,
    ['store', 'runtime', 'bare insert', "runtime's own", 'bare / runtime'],
    rows,
    "the runtime's own work at most 30 µs of CPU per step; the runtime at 0.85x of the bare insert or better.",
  );
  printFigures(
    'The runtime on the memory store (no statements): CPU per step back to back, and right after each bare insert (medians)',
    ['after each', 'warm', 'after each wait', 'cold / warm'],
    coldRows,
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
