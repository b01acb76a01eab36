/**
 * The runs list at scale (#33): `GET /api/runs` and `GET /api/runs/counts` on SQLite stores of
 * 1,000, 10,000 and 100,000 runs, side by side in one process, each query timed in interleaved
 * rounds (`interleavedAll`) and given as a ratio to the same query on the 1,000-run store. The
 * target: a page costs the same at any size. Beside them, what the route did before (every run
 * listed, sorted in memory, the page explained), for the contrast.
 *
 *   npx tsx bench/runs-list.bench.ts [--sizes 1000,10000,100000]
 *
 * The runs are kici executions copied through the store API (`store.commit`, in batches) from runs
 * the runtime recorded, each under its own id (`run-000042`) a millisecond after the one before:
 * 70% skipped (ended), 20% running (two events, so SQLite's row checkpoint lags its log by one) and
 * 10% still pending. The requests go to the API app in this process (`app.request`), no socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { lifecycles } from '../machines/index.js';
import { explainRun } from '../src/explain/index.js';
import { createRuntime, type Runtime } from '../src/runtime/index.js';
import { apiApp } from '../src/serve/api-app.js';
import { StepStreams } from '../src/serve/step-stream.js';
import { memoryStore, sqliteStore } from '../src/stores/index.js';
import { plainRow, type Commit, type Store } from '../src/stores/store.js';
import { interleavedAll, printFigures, type Contender } from './measure.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { sizes: { type: 'string' } }, strict: false });
const SIZES = String(values.sizes ?? '1000,10000,100000')
  .split(',')
  .map(Number);
if (SIZES.some((n) => !Number.isInteger(n) || n < 100))
  throw new Error(`--sizes takes whole numbers of at least 100, comma-separated; got '${values.sizes}'`);

const T0 = Date.UTC(2026, 0, 1);
const PAGE = 50;
const runId = (i: number) => `run-${String(i).padStart(6, '0')}`;
const progress = (line: string) => process.stderr.write(`runs-list: ${line}\n`);

/** The commits of one execution driven by the runtime through `events`, as it handed them to its store. */
async function recorded(events: ReadonlyArray<{ type: string }>): Promise<Commit[]> {
  const inner = memoryStore();
  const commits: Commit[] = [];
  const recording: Store = {
    ...inner,
    leases: undefined,
    async commit(batch) {
      await inner.commit(batch);
      for (const { lease: _lease, ...commit } of batch)
        commits.push(JSON.parse(JSON.stringify({ ...commit, run: plainRow(commit.run) })) as Commit);
    },
  };
  // Loose: the events are given as strings.
  const runtime: Runtime = await createRuntime({ store: recording, machines: lifecycles, recover: false });
  await runtime.start('execution', { id: 'template' });
  for (const event of events) await runtime.dispatch('template', event);
  await runtime.close();
  return commits;
}

/** `n` runs in `store`, run `i` a copy of its template under `runId(i)`, started at T0 + i. */
async function seed(store: Store, n: number): Promise<void> {
  const templates = {
    skipped: await recorded([{ type: 'SKIP' }]),
    running: await recorded([{ type: 'ENQUEUE' }, { type: 'START' }]),
    pending: await recorded([]),
  };
  const templateOf = (i: number) =>
    i % 10 < 7 ? templates.skipped : i % 10 < 9 ? templates.running : templates.pending;
  for (let first = 0; first < n; first += 5000) {
    const batch: Commit[] = [];
    for (let i = first; i < Math.min(n, first + 5000); i++) {
      const id = runId(i);
      for (const commit of templateOf(i))
        batch.push({
          ...commit,
          run: { ...commit.run, runId: id, createdAt: T0 + i, updatedAt: T0 + i },
          ...(commit.event && { event: { ...commit.event, runId: id } }),
        });
    }
    await store.commit(batch);
  }
}

interface Sized {
  readonly n: number;
  readonly store: Store;
  readonly runtime: Runtime;
  /** GET on the API app; rejects on anything but 200. */
  get(path: string): Promise<{ runs?: unknown[]; next?: string | null }>;
  /** The cursor of the page that ends halfway down the list. */
  readonly middle: string;
}

const dir = mkdtempSync(join(tmpdir(), 'statewright-bench-runs-list-'));
const stores: Sized[] = [];
for (const n of SIZES) {
  const started = performance.now();
  const store = sqliteStore(join(dir, `runs-${n}.db`), { synchronous: 'NORMAL' });
  await seed(store, n);
  const runtime: Runtime = await createRuntime({ store, machines: lifecycles, recover: false, hibernate: false });
  const app = apiApp({
    runtime,
    start: (machine, options) => runtime.start(machine, options),
    steps: new StepStreams(runtime),
    guard: { boundHost: '127.0.0.1' },
    uiDir: dir,
  });
  const get = async (path: string) => {
    const response = await app.request(`http://127.0.0.1${path}`, { headers: { host: '127.0.0.1' } });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { runs?: unknown[]; next?: string | null };
  };
  const middle = Buffer.from(JSON.stringify([T0 + Math.floor(n / 2), runId(Math.floor(n / 2))])).toString('base64url');
  stores.push({ n, store, runtime, get, middle });
  progress(`${n.toLocaleString('en')} runs seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** What `GET /api/runs?limit=50` did before #33: every run listed, sorted in memory, the page explained. */
async function before(runtime: Runtime): Promise<void> {
  const runs = await runtime.list({});
  runs.sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? -1 : 1));
  await Promise.all(runs.slice(0, PAGE).map((run) => explainRun(runtime, run.runId)));
}

interface Query {
  readonly name: string;
  /** Requests per timed round. */
  readonly perRound: number;
  readonly rounds?: number;
  run(s: Sized): Promise<unknown>;
}

const QUERIES: Query[] = [
  { name: 'first page of 50 (`?limit=50`)', perRound: 20, run: (s) => s.get(`/api/runs?limit=${PAGE}`) },
  {
    name: "the store's page alone (`runtime.listPage`, no verdicts)",
    perRound: 20,
    run: (s) => s.runtime.listPage({ limit: PAGE }),
  },
  {
    name: 'a page halfway down (`&cursor=`)',
    perRound: 20,
    run: (s) => s.get(`/api/runs?limit=${PAGE}&cursor=${s.middle}`),
  },
  {
    name: 'first page of the active runs (`?status=active`)',
    perRound: 20,
    run: (s) => s.get(`/api/runs?limit=${PAGE}&status=active&machine=execution`),
  },
  {
    name: 'first page in state pending (1 run in 10; `?state=pending`)',
    perRound: 20,
    run: (s) => s.get(`/api/runs?limit=${PAGE}&state=pending`),
  },
  {
    name: 'search matching every run (`?q=RUN-`)',
    perRound: 20,
    run: (s) => s.get(`/api/runs?limit=${PAGE}&q=RUN-`),
  },
  {
    name: 'search matching under a page (`?q=00042`): walks the whole index',
    perRound: 5,
    run: (s) => s.get(`/api/runs?limit=${PAGE}&q=00042`),
  },
  { name: 'counts by state (`/api/runs/counts`)', perRound: 5, run: (s) => s.get('/api/runs/counts') },
  { name: 'before #33: list all, sort, explain 50', perRound: 1, rounds: 5, run: (s) => before(s.runtime) },
];

// The pages are what they should be before anything is timed.
for (const s of stores) {
  const first = await s.get(`/api/runs?limit=${PAGE}`);
  const ids = (first.runs as Array<{ runId: string }>).map((r) => r.runId);
  if (ids[0] !== runId(s.n - 1) || ids.length !== PAGE || !first.next)
    throw new Error(`the first page of ${s.n} runs is wrong: ${ids.slice(0, 3).join(', ')}...`);
  const counts = (await s.get('/api/runs/counts')) as unknown as { total: number };
  if (counts.total !== s.n) throw new Error(`counted ${counts.total} of ${s.n} runs`);
}

const ms = (rate: number) => `${(1000 / rate).toFixed(rate > 100 ? 2 : 1)} ms`;
const rows: string[][] = [];
for (const query of QUERIES) {
  const contenders: Contender[] = stores.map((s) => ({
    name: `${s.n}`,
    opsPerRound: query.perRound,
    round: async () => {
      for (let i = 0; i < query.perRound; i++) await query.run(s);
    },
  }));
  const [base, ...others] = await interleavedAll(contenders[0]!, contenders.slice(1), query.rounds ?? 7);
  rows.push([
    query.name,
    ...[base!, ...others].map((m) => ms(m.opsPerSecond)),
    ...others.map((m) => `${(1 / m.ratio!).toFixed(2)}x`),
  ]);
  progress(`${query.name}: done`);
}
const sizes = stores.map((s) => s.n.toLocaleString('en'));
printFigures(
  `GET /api/runs on SQLite with ${sizes.join(', ')} runs (time per request, median; ratio of time to the ${sizes[0]}-run store, same rounds)`,
  ['query', ...sizes.map((n) => `${n} runs`), ...sizes.slice(1).map((n) => `${n} / ${sizes[0]}`)],
  rows,
  'a page costs the same at every size: ratios of the pages near 1x.',
);

for (const s of stores) {
  await s.runtime.close();
  await s.store.close();
}
rmSync(dir, { recursive: true, force: true });
