/**
 * A million idle runs on one host (#18), each target beside its baseline measured in the same run,
 * on SQLite and on Postgres:
 * 1. one host's RSS with N idle runs in the store, in a fresh child process, once ready and after a
 *    few events to random runs: under 1 GB at 1M runs; baseline: the same host on an empty store;
 * 2. that host's ready time (from `createRuntime` until it resolves) on 100k runs: under 1 s;
 *    baseline: the empty store;
 * 3. an event that wakes a hibernated run beside an event to a live run, same store, same
 *    lifecycle, in interleaved rounds: at most 2x the cost;
 * 4. events/s to a live run with 1, 1k, 100k and N runs in the store: flat.
 *
 *   npx tsx bench/scale.bench.ts [--runs 1000000] [--stores sqlite,postgres]
 *
 * `--runs` defaults to 100,000, which takes about five minutes on a 2-core machine (`npm run
 * bench`); 1,000,000 takes about eight minutes on SQLite and fifteen on Postgres, most of it seeding.
 *
 * The idle runs are ferrus tasks waiting on their executor (a lease timer days away, so a `wakeAt`)
 * and kici executions waiting in `running` (no deadline), half each (see scale/idle-runs.ts).
 * STATEWRIGHT_SKIP_POSTGRES=1 leaves Postgres out.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { lifecycles } from '../machines/index.js';
import { createRuntime, type Runtime } from '../src/runtime/index.js';
import { signalGroup } from '../src/os/process-identity.js';
import type { Store } from '../src/stores/store.js';
import { requirePostgres, skipPostgres } from '../test/stores/test-postgres.js';
import { interleavedAll, printFigures, printTable, type Contender } from './measure.js';
import { heartbeat, idleRunId, seedIdleRuns } from './scale/idle-runs.js';
import type { HostFigures } from './scale/host.js';
import { newStoreName, openStore, removeStore, settleStore, storeBytes, type StoreKind } from './scale/stores.js';

const DEFAULT_RUNS = 100_000;
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string' }, stores: { type: 'string' } },
  strict: false,
  allowPositionals: true,
});
const runs = Number(values.runs ?? DEFAULT_RUNS);
if (!Number.isInteger(runs) || runs < 2)
  throw new Error(`--runs must be a whole number of at least 2 (the idle runs to store); got '${values.runs}'`);
const kinds = String(values.stores ?? 'sqlite,postgres').split(',') as StoreKind[];
for (const kind of kinds)
  if (kind !== 'sqlite' && kind !== 'postgres')
    throw new Error(`--stores takes sqlite and postgres, comma-separated; got '${kind}'`);

/** The store sizes the per-event cost is measured at. */
const sizes = [...new Set([1, 1_000, 100_000, runs].filter((size) => size <= runs))];
const READY_SIZE = Math.min(100_000, runs);
/** Heartbeats each host child sends to random runs before its second RSS reading. */
const HOST_EVENTS = 100;
const HOST_ROUNDS = 3;

const count = (n: number) => n.toLocaleString('en');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const progress = (line: string) => process.stderr.write(`scale: ${line}\n`);
/** How a target fared in this run, with the figure it was judged on. */
const verdict = (met: boolean, figure: string) => `${met ? '**met**' : '**not met**'} (${figure})`;

/** Runs host.ts in a fresh process (its own group, killed however it ends) and returns its figures. */
async function hostFigures(store: string, storedRuns: number): Promise<HostFigures> {
  const program = fileURLToPath(new URL('./scale/host.ts', import.meta.url));
  const child = execa(
    process.execPath,
    ['--import', 'tsx', program, '--store', store, '--runs', String(storedRuns), '--events', String(HOST_EVENTS)],
    {
      detached: true,
      timeout: 20 * 60_000,
    },
  );
  try {
    const { stdout } = await child;
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as HostFigures;
  } finally {
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
  }
}

/** Targets 1 and 2: fresh host processes on the empty store, on 100k runs and on N runs, in rotating order. */
async function hostProcesses(kind: StoreKind, stores: ReadonlyArray<{ name: string; runs: number }>): Promise<void> {
  const figures = stores.map(() => [] as HostFigures[]);
  for (let round = 0; round < HOST_ROUNDS; round++) {
    for (let k = 0; k < stores.length; k++) {
      const index = (round + k) % stores.length;
      progress(`${kind}: host process on ${count(stores[index]!.runs)} runs (round ${round + 1} of ${HOST_ROUNDS})`);
      figures[index]!.push(await hostFigures(stores[index]!.name, stores[index]!.runs));
    }
  }
  const of = (index: number, field: keyof HostFigures) => median(figures[index]!.map((f) => f[field]));
  const ratio = (index: number, field: keyof HostFigures) => `${(of(index, field) / of(0, field)).toFixed(2)}x`;
  const label = (index: number) =>
    stores[index]!.runs === 0 ? 'empty store (baseline)' : `${count(stores[index]!.runs)} idle runs`;
  printFigures(
    `${kind}: one host's memory (fresh process, median of ${HOST_ROUNDS})`,
    ['store', 'RSS when ready', `RSS after ${HOST_EVENTS} events`, 'heap used', 'RSS vs baseline'],
    stores.map((_, i) => [
      label(i),
      mb(of(i, 'rssReady')),
      mb(of(i, 'rssAfterEvents')),
      mb(of(i, 'heapUsedAfterEvents')),
      ratio(i, 'rssAfterEvents'),
    ]),
    `under 1 GB of RSS with 1,000,000 idle runs stored: ${verdict(of(stores.length - 1, 'rssAfterEvents') < 2 ** 30, `${mb(of(stores.length - 1, 'rssAfterEvents'))} with ${count(runs)}`)}`,
  );
  printFigures(
    `${kind}: a host's ready time, createRuntime until it resolves (fresh process, median of ${HOST_ROUNDS})`,
    ['store', 'ready in', 'vs baseline'],
    stores.map((_, i) => [label(i), `${of(i, 'readyMs').toFixed(1)} ms`, ratio(i, 'readyMs')]),
    `under 1 s with 100,000 active runs stored: ${verdict(of(1, 'readyMs') < 1000, `${of(1, 'readyMs').toFixed(0)} ms with ${count(stores[1]!.runs)}`)}`,
  );
}

/** A runtime whose woken runs stay in memory for the whole benchmark. */
const stayingHost = (store: Store): Promise<Runtime> =>
  createRuntime({ store, machines: lifecycles, hibernate: { afterIdleMs: 3_600_000 } });

/** `perRound` heartbeats to `runIds` in turn, `lanes` at a time, each lane awaiting each of its events. */
function liveEvents(
  runtime: Runtime,
  runIds: readonly string[],
  perRound: number,
  lanes: number,
  name: string,
): Contender {
  let next = 0;
  return {
    name,
    opsPerRound: perRound,
    round: () => inLanes(perRound, lanes, () => runtime.dispatch(runIds[next++ % runIds.length]!, heartbeat)),
  };
}

/** Runs `count` calls of `call`, `lanes` at a time. */
async function inLanes(count: number, lanes: number, call: () => Promise<unknown>): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (left-- > 0) await call();
    }),
  );
}

/** The stored tasks in random order: a run woken once is live from then on, so each wake takes the next. */
function shuffledTasks(storedRuns: number): number[] {
  const tasks = Array.from({ length: Math.ceil(storedRuns / 2) }, (_, k) => 2 * k);
  for (let i = tasks.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [tasks[i], tasks[j]] = [tasks[j]!, tasks[i]!];
  }
  return tasks;
}

/**
 * The least a wake could cost, one at a time: a plain read of a sleeping task (its row, cold, as a
 * wake must read it), then a heartbeat to one of the first ten `live` tasks. Each read takes a task
 * from `sleeping`, so none is read twice.
 */
function lowerBound(
  store: Store,
  runtime: Runtime,
  live: readonly string[],
  sleeping: number[],
  perRound: number,
): Contender {
  let read = 0;
  return {
    name: 'the least a wake could cost: a read of a hibernated task, then an event to a live task (lower bound)',
    opsPerRound: perRound,
    round: () =>
      inLanes(perRound, 1, async () => {
        await store.load(idleRunId(sleeping.pop()!));
        await runtime.dispatch(live[read++ % 10]!, heartbeat);
      }),
  };
}

/**
 * Target 3: heartbeats that wake sleeping tasks beside heartbeats to live tasks, on the same host
 * and store: one at a time (the target), then 100 at once (how a busy host sees it; for information).
 * One at a time, `lowerBound` runs beside them: it leaves out the claim's write, the actor's restore
 * and the cold row's own first write, so the target's room for all of them is its margin over 0.50x.
 * Resolves with a live task.
 */
async function wakeCost(kind: StoreKind, store: Store, runtime: Runtime, storedRuns: number): Promise<string> {
  const rounds = 7;
  const sleeping = shuffledTasks(storedRuns);
  const live = sleeping.splice(0, 100).map(idleRunId);
  await Promise.all(live.map((runId) => runtime.dispatch(runId, heartbeat)));
  // Three measurements of `rounds` timed rounds and a warm-up each, every wake (and every read of
  // the lower bound) on a task not woken or read before.
  const budget = Math.floor(sleeping.length / (3 * (rounds + 1)));
  for (const lanes of [1, Math.min(100, budget)]) {
    const perRound = Math.min(lanes === 1 ? 200 : 1000, budget);
    const atOnce = lanes === 1 ? 'one at a time' : `${lanes} at once`;
    const wake: Contender = {
      name: `an event that wakes a hibernated task, ${atOnce}`,
      opsPerRound: perRound,
      round: () => inLanes(perRound, lanes, () => runtime.dispatch(idleRunId(sleeping.pop()!), heartbeat)),
    };
    const liveRate = liveEvents(
      runtime,
      lanes === 1 ? live.slice(0, 10) : live,
      perRound,
      lanes,
      `an event to a live task, ${atOnce}`,
    );
    const [base, woken, least] = await interleavedAll(
      liveRate,
      lanes === 1 ? [wake, lowerBound(store, runtime, live, sleeping, perRound)] : [wake],
      rounds,
    );
    printTable(
      `${kind}: waking a hibernated run for one event, ${atOnce}, ${count(storedRuns)} idle runs stored (${perRound} events a round, each awaited)`,
      base!,
      least ? [base!, woken!, least] : [base!, woken!],
      lanes === 1
        ? `the wake at least 0.50x the live rate (an event that wakes a run costs at most 2x one to a live run): ${verdict(woken!.ratio! >= 0.5, `${woken!.ratio!.toFixed(2)}x`)}`
        : 'none (for information: how a busy host that wakes many runs at once compares with its live runs)',
    );
  }
  return live[0]!;
}

/** Target 4: heartbeats to a live task on stores of every size, in rotating rounds. */
async function costBySize(
  kind: StoreKind,
  hosts: ReadonlyArray<{ runtime: Runtime; runs: number; live: string }>,
): Promise<void> {
  const contenders = hosts.map(({ runtime, runs: stored, live }) =>
    liveEvents(runtime, [live], 400, 1, `${count(stored)} run${stored === 1 ? '' : 's'} stored`),
  );
  const [base, ...rest] = await interleavedAll(contenders[0]!, contenders.slice(1), 9);
  printTable(
    `${kind}: events/s to a live run as the store grows, each event awaited`,
    base!,
    [base!, ...rest],
    'flat: every row close to 1.00x',
  );
}

async function benchStore(kind: StoreKind): Promise<void> {
  const names: string[] = [];
  const runtimes: Runtime[] = [];
  const stores: Store[] = [];
  try {
    const seeded = new Map<number, string>();
    const seedRows: string[][] = [];
    for (const size of [0, ...sizes]) {
      const name = newStoreName(kind);
      names.push(name);
      const store = await openStore(name);
      try {
        const rate = await seedIdleRuns(store, 0, size, {
          onProgress: (p) =>
            progress(`${kind}: seeded ${count(p.seeded)} of ${count(size)} runs in ${p.seconds.toFixed(0)} s`),
        });
        if (size > 0)
          seedRows.push([
            count(size),
            `${rate.seconds.toFixed(1)} s`,
            `${count(Math.round(size / rate.seconds))}/s`,
            mb(await storeBytes(name)),
          ]);
      } finally {
        await store.close();
      }
      await settleStore(name);
      seeded.set(size, name);
    }
    printFigures(
      `${kind}: idle runs seeded through the store API (store.commit, ${5000}-run batches, each run's creation and two events; then leases.release${kind === 'postgres' ? '; then VACUUM ANALYZE, as autovacuum would' : ''})`,
      ['runs', 'took', 'rate', 'on disk'],
      seedRows,
    );

    await hostProcesses(
      kind,
      [...new Set([0, READY_SIZE, runs])].map((size) => ({ name: seeded.get(size)!, runs: size })),
    );

    const hosts: Array<{ runtime: Runtime; runs: number; live: string }> = [];
    for (const size of sizes) {
      const store = await openStore(seeded.get(size)!);
      stores.push(store);
      const runtime = await stayingHost(store);
      runtimes.push(runtime);
      if (size === runs) {
        hosts.push({ runtime, runs: size, live: await wakeCost(kind, store, runtime, size) });
      } else {
        await runtime.dispatch(idleRunId(0), heartbeat);
        hosts.push({ runtime, runs: size, live: idleRunId(0) });
      }
    }
    await costBySize(
      kind,
      hosts.sort((a, b) => a.runs - b.runs),
    );
  } finally {
    for (const runtime of runtimes) await runtime.close();
    for (const store of stores) await store.close();
    for (const name of names) await removeStore(name);
  }
}

console.log(
  `\n## A million idle runs (#18): ${count(runs)} idle runs stored in this run (--runs), on ${kinds.join(' and ')}`,
);
for (const kind of kinds) {
  if (kind === 'postgres') {
    if (skipPostgres) {
      console.log('\nPostgres left out (STATEWRIGHT_SKIP_POSTGRES=1).');
      continue;
    }
    requirePostgres();
  }
  await benchStore(kind);
}
