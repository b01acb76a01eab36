/**
 * Durable events per second through the runtime, each beside its baseline measured in the same run:
 * - one run, one event at a time (each awaited): against the store's raw single-row transaction;
 * - 100 concurrent runs, each awaiting its own events: group commit at work;
 * - the in-memory runtime against raw `actor.send`;
 * - the cost per event as a run's history grows to 10, 1k and 100k events;
 * - the same two targets on Postgres, against raw INSERTs on the same server (postgres-runtime.ts).
 * The events cycle running -> recovering -> running, so a run never ends.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createActor } from 'xstate';
import { lifecycles } from '../machines/index.js';
import { createRuntime, type Runtime } from '../src/runtime/index.js';
import { jsonFileStore, memoryStore, sqliteStore, type Store } from '../src/stores/index.js';
import { interleaved, measure, measureAsync, printTable, type Measurement } from './measure.js';
import { postgresBench } from './postgres-runtime.js';

const CYCLE = ['RECOVER', 'START'] as const;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'statewright-bench-'));
  dirs.push(dir);
  return dir;
};

/** Stores under test; each call gives a fresh, empty one. */
const stores: Record<string, () => Store> = {
  memory: () => memoryStore(),
  sqlite: () => sqliteStore(join(tempDir(), 'state.db')),
  'json-file': () => jsonFileStore(tempDir()),
};

async function runningRun(rt: Runtime): Promise<string> {
  const { runId } = await rt.start('execution');
  await rt.dispatch(runId, { type: 'ENQUEUE' });
  await rt.dispatch(runId, { type: 'START' });
  return runId;
}

/** Raw SQLite: one row per transaction, same pragmas and about the same bytes as one event commit. */
function rawSqliteTransactions(count: number) {
  const db = new Database(join(tempDir(), 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const one = db.transaction((body: string) => insert.run(body));
  const body = 'x'.repeat(400);
  const round = () => {
    for (let i = 0; i < count; i++) one(body);
  };
  return { name: 'raw SQLite single-row transaction', opsPerRound: count, round, close: () => db.close() };
}

/** Raw files: one line appended and fsync'd per write, as a json-file commit at least does. */
function rawFileAppends(count: number): Measurement {
  const fd = openSync(join(tempDir(), 'raw.jsonl'), 'a');
  const line = `${'x'.repeat(400)}\n`;
  const result = measure(
    'raw file append + fsync',
    count,
    () => {
      for (let i = 0; i < count; i++) {
        writeSync(fd, line);
        fsyncSync(fd);
      }
    },
    3,
  );
  closeSync(fd);
  return result;
}

async function oneRunContender(kind: string, count: number) {
  const store = stores[kind]!();
  const rt = await createRuntime({ store, machines: lifecycles });
  const runId = await runningRun(rt);
  let i = 0;
  const round = async () => {
    for (let n = 0; n < count; n++) await rt.dispatch(runId, { type: CYCLE[i++ % 2]! });
  };
  const close = async () => {
    await rt.close();
    await store.close();
  };
  return { name: `${kind}: 1 run, each event awaited`, opsPerRound: count, round, close };
}

async function oneRun(kind: string, count: number): Promise<Measurement> {
  const contender = await oneRunContender(kind, count);
  const result = await measureAsync(contender.name, count, contender.round, 3);
  await contender.close();
  return result;
}

async function concurrentRuns(kind: string, runs: number, perRun: number): Promise<Measurement> {
  const store = stores[kind]!();
  const rt = await createRuntime({ store, machines: lifecycles });
  const ids = await Promise.all(Array.from({ length: runs }, () => runningRun(rt)));
  const cursors = new Map(ids.map((id) => [id, 0]));
  const result = await measureAsync(
    `${kind}: ${runs} runs, each event awaited`,
    runs * perRun,
    async () => {
      await Promise.all(
        ids.map(async (id) => {
          for (let n = 0; n < perRun; n++) {
            const i = cursors.get(id)!;
            cursors.set(id, i + 1);
            await rt.dispatch(id, { type: CYCLE[i % 2]! });
          }
        }),
      );
    },
    5,
  );
  await rt.close();
  await store.close();
  return result;
}

function rawActorSend(count: number) {
  const actor = createActor(lifecycles.execution.machine).start();
  actor.send({ type: 'ENQUEUE' });
  actor.send({ type: 'START' });
  let i = 0;
  const round = () => {
    for (let n = 0; n < count; n++) actor.send({ type: CYCLE[i++ % 2]! });
  };
  return { name: 'raw actor.send', opsPerRound: count, round };
}

async function inMemoryRuntime(count: number) {
  const rt = await createRuntime({ store: memoryStore(), machines: lifecycles });
  const runId = await runningRun(rt);
  let i = 0;
  const round = async () => {
    for (let n = 0; n < count; n++) rt.send(runId, { type: CYCLE[i++ % 2]! });
    await rt.flush();
  };
  return { name: 'runtime on memoryStore (send, then flush)', opsPerRound: count, round, close: () => rt.close() };
}

/**
 * The cost of one event on runs that already hold `size` events: `sample` events, each awaited,
 * spread round-robin over enough runs (each grown to `size` first) that no run's history grows by
 * more than a tenth (or by 10 events, for the smallest size) while it is timed.
 */
async function costAtHistory(kind: string, sizes: number[], sample: number): Promise<Measurement[]> {
  const store = stores[kind]!();
  const rt = await createRuntime({ store, machines: lifecycles });
  const rows: Measurement[] = [];
  for (const size of sizes) {
    // Two passes (a warm-up, then the timed one) may add at most this many events to each run.
    const growth = Math.max(10, size / 10);
    const runCount = Math.min(sample, Math.ceil((2 * sample) / growth));
    const runs = await Promise.all(Array.from({ length: runCount }, () => runningRun(rt)));
    const applied = new Map(runs.map((id) => [id, 0]));
    const next = (id: string) => {
      const n = applied.get(id)!;
      applied.set(id, n + 1);
      return { type: CYCLE[n % 2]! };
    };
    // Grow every run's history quickly (pipelined), then time events one at a time.
    for (const id of runs) {
      while (applied.get(id)! < size) {
        for (let n = Math.min(5000, size - applied.get(id)!); n > 0; n--) rt.send(id, next(id));
        await rt.flush();
      }
    }
    const rounds = Math.ceil(sample / runCount);
    const timeRounds = async () => {
      for (let round = 0; round < rounds; round++) for (const id of runs) await rt.dispatch(id, next(id));
    };
    rows.push(
      await measureAsync(
        `${kind}: at ${size.toLocaleString('en')} events of history (${runCount} run${runCount > 1 ? 's' : ''})`,
        rounds * runCount,
        timeRounds,
        1,
      ),
    );
  }
  await rt.close();
  await store.close();
  return rows;
}

// The targets compare against a baseline: the two run in alternating rounds (see `interleaved`).
const rawSqlite = rawSqliteTransactions(2000);
const sqliteRun = await oneRunContender('sqlite', 2000);
const [rawSqliteRate, sqliteRate] = await interleaved(rawSqlite, sqliteRun, 9);
await sqliteRun.close();
printTable(
  'One run on SQLite (synchronous=FULL), each event awaited',
  rawSqliteRate,
  [rawSqliteRate, sqliteRate],
  'at least 0.8x the raw single-row transaction rate',
);

const concurrent = await concurrentRuns('sqlite', 100, 300);
printTable(
  '100 concurrent runs on SQLite, group commit',
  rawSqliteRate,
  [rawSqliteRate, concurrent],
  `at least 50,000 durable events/s (measured: ${Math.round(concurrent.opsPerSecond).toLocaleString('en')}/s)`,
);
rawSqlite.close();

const rawFile = rawFileAppends(1000);
printTable('The json-file store', rawFile, [
  rawFile,
  await oneRun('json-file', 500),
  await concurrentRuns('json-file', 100, 20),
]);

const inMemory = await inMemoryRuntime(100_000);
const [raw, inMemoryRate] = await interleaved(rawActorSend(100_000), inMemory, 7);
await inMemory.close();
printTable(
  'In memory',
  raw,
  [raw, inMemoryRate, await oneRun('memory', 20_000), await concurrentRuns('memory', 100, 1000)],
  'runtime on memoryStore at least 0.65x raw actor.send',
);

for (const kind of Object.keys(stores)) {
  const rows = await costAtHistory(kind, [10, 1_000, 100_000], kind === 'memory' ? 5000 : 500);
  printTable(`Cost per event as history grows (${kind})`, rows[0]!, rows, 'flat: the last row close to 1.00x');
}

await postgresBench();

for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
