/**
 * `npm run bench:peers`: statewright beside DBOS Transact, LangGraph and a raw insert, on the same
 * Postgres and the same SQLite, each system on a fresh schema or file of its own. Prints, as
 * Markdown: steps/s for one workflow (steps awaited one by one) and for 100 at once, in interleaved
 * rounds, with each row's ratio to statewright on its store; what one step asks of the database;
 * and the memory per waiting workflow and the time to be ready again over 10k waiting workflows.
 */
import { execFile } from 'node:child_process';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleavedRounds, type Contender, type Rate } from './rounds.js';
import { sleeperKeys, sleepersFor, type SleeperKey } from './sleepers.js';
import { requirePostgres } from './postgres.js';
import type { OpenSystem, System } from './system.js';
import { dbos, dbosLongWorkflow } from './systems/dbos.js';
import { langgraph } from './systems/langgraph.js';
import { rawInsert } from './systems/raw-insert.js';
import { statewright } from './systems/statewright.js';
import { countWork, installWorkCounter, type Work } from './work-counter.js';

installWorkCounter();

const WAITING = Number(process.env.PEERS_WAITING ?? 10_000);
const ROUNDS = Number(process.env.PEERS_ROUNDS ?? 7);
const CONCURRENT = 100;

const systems: System[] = [
  statewright('sqlite'),
  langgraph('sqlite', 'async', 'default'),
  langgraph('sqlite', 'sync', 'FULL'),
  rawInsert('sqlite'),
  statewright('postgres'),
  dbos(),
  dbosLongWorkflow(),
  langgraph('postgres', 'async'),
  langgraph('postgres', 'sync'),
  rawInsert('postgres'),
];
const keyOf = (s: System) => `${s.store}: ${s.name}`;
const referenceOf = (s: System) => keyOf(systems.find((r) => r.reference && r.store === s.store)!);

await requirePostgres();
const started = new Date();
const loadAtStart = loadavg();
console.error(`peers: opening ${systems.length} systems`);
const open = new Map<string, OpenSystem>();

/** Contenders driving `workflows` workflows each, every unit one step on each workflow, awaited one by one per workflow. */
async function contenders(workflows: number): Promise<Contender[]> {
  const list: Contender[] = [];
  for (const s of systems) {
    const step = await open.get(keyOf(s))!.workflows(workflows);
    const ids = Array.from({ length: workflows }, (_, i) => i);
    list.push({
      key: keyOf(s),
      reference: referenceOf(s),
      async round(units) {
        await Promise.all(
          ids.map(async (i) => {
            for (let u = 0; u < units; u++) await step(i);
          }),
        );
        return units * workflows;
      },
    });
  }
  return list;
}

/** Statements and write commits per step, one workflow alone and then 100 at once. */
async function countedWork(system: OpenSystem): Promise<{ one: Work; many: Work }> {
  const single = await system.workflows(1);
  await single(0);
  const one = await countWork(50, async () => {
    for (let n = 0; n < 50; n++) await single(0);
  });
  const several = await system.workflows(CONCURRENT);
  await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => several(i)));
  const many = await countWork(2 * CONCURRENT, async () => {
    await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        await several(i);
        await several(i);
      }),
    );
  });
  return { one, many };
}

let one: Map<string, Rate>;
let many: Map<string, Rate>;
const work = new Map<string, { one: Work; many: Work }>();
try {
  for (const s of systems) open.set(keyOf(s), await s.open());
  console.error(`peers: one workflow, ${ROUNDS} interleaved rounds`);
  one = await interleavedRounds(await contenders(1), { rounds: ROUNDS, secondsPerRound: 0.4, maxUnits: 5000 });
  console.error(`peers: ${CONCURRENT} workflows at once, ${ROUNDS} interleaved rounds`);
  many = await interleavedRounds(await contenders(CONCURRENT), { rounds: ROUNDS, secondsPerRound: 0.6, maxUnits: 200 });
  console.error('peers: counting statements and commits per step');
  // Each system is closed once counted, and DBOS, whose background polling would land in the
  // others' counts, comes last.
  const dbosLast = [...systems].sort((a, b) => Number(a.name.startsWith('DBOS')) - Number(b.name.startsWith('DBOS')));
  for (const s of dbosLast) {
    const system = open.get(keyOf(s))!;
    work.set(keyOf(s), await countedWork(system));
    if (!s.name.startsWith('DBOS')) {
      open.delete(keyOf(s));
      await system.close();
    }
  }
} finally {
  // Closing drops each system's schema or file, also when a measurement failed.
  for (const system of open.values()) await system.close();
}

interface Waiting {
  heapPerWorkflow?: number;
  rssPerWorkflow?: number;
  populateSeconds?: number;
  readySeconds?: number;
  rssWhenReady?: number;
  error?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
function child(args: string[], timeoutMs: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'idle.ts', ...args],
      { cwd: here, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(
              `idle.ts ${args.join(' ')} failed (${error.killed ? `killed after ${timeoutMs / 1000} s` : (error.code ?? error.signal)}): ${stderr.trim().split('\n').slice(-3).join(' / ')}`,
            ),
          );
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>);
      },
    );
  });
}

const waiting = new Map<SleeperKey, Waiting>();
for (const key of sleeperKeys) {
  console.error(`peers: ${WAITING} waiting workflows, ${key}`);
  const sleepers = await sleepersFor(key);
  const location = sleepers.freshLocation();
  try {
    const populated = await child([key, 'populate', location, String(WAITING)], 600_000);
    const recovered = await child([key, 'recover', location, String(WAITING)], 300_000);
    waiting.set(key, { ...populated, ...recovered });
  } catch (error) {
    waiting.set(key, { error: (error as Error).message });
  } finally {
    await sleepers.drop(location);
  }
}

// The report.
const rate = (r: Rate | undefined) =>
  r ? (r.stepsPerSecond >= 1000 ? `${(r.stepsPerSecond / 1000).toFixed(1)}k` : r.stepsPerSecond.toFixed(0)) : '';
const ratio = (r: Rate | undefined) => (r ? `${r.ratio >= 0.1 ? r.ratio.toFixed(2) : r.ratio.toPrecision(2)}x` : '');
const perStep = (n: number) => n.toFixed(n >= 10 ? 0 : n >= 1 ? 1 : 2);
const kb = (bytes: number | undefined) => (bytes === undefined ? '' : `${(bytes / 1024).toFixed(1)} KB`);
const lines: string[] = [];
lines.push(
  `Measured ${started.toISOString()} on ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GB (${(freemem() / 2 ** 30).toFixed(0)} GB free at the end), Node ${process.version}; load average ${loadAtStart.map((l) => l.toFixed(1)).join(' ')} at the start, ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} at the end.`,
);
lines.push(
  '',
  `### Steps per second (${ROUNDS} interleaved rounds, median; ratio to statewright on the same store, median of the rounds)`,
  '',
);
lines.push(
  '| store | system | 1 workflow | vs statewright | 100 workflows | vs statewright |',
  '|---|---|---:|---:|---:|---:|',
);
for (const s of systems)
  lines.push(
    `| ${s.store} | ${s.name} | ${rate(one.get(keyOf(s)))} | ${ratio(one.get(keyOf(s)))} | ${rate(many.get(keyOf(s)))} | ${ratio(many.get(keyOf(s)))} |`,
  );
lines.push('', '### What one step asks of the database (counted in the drivers)', '');
lines.push(
  '| store | system | statements per step, 1 workflow | write commits per step, 1 workflow | statements per step, 100 | write commits per step, 100 |',
  '|---|---|---:|---:|---:|---:|',
);
for (const s of systems) {
  const w = work.get(keyOf(s))!;
  lines.push(
    `| ${s.store} | ${s.name} | ${perStep(w.one.statements)} | ${perStep(w.one.writeCommits)} | ${perStep(w.many.statements)} | ${perStep(w.many.writeCommits)} |`,
  );
}
lines.push('', `### ${WAITING.toLocaleString('en')} waiting workflows (each phase in a fresh process)`, '');
lines.push(
  '| system, store | heap per waiting workflow | RSS per waiting workflow | time to put them to wait | ready after a restart | RSS when ready |',
  '|---|---:|---:|---:|---:|---:|',
);
for (const key of sleeperKeys) {
  const w = waiting.get(key)!;
  if (w.error) lines.push(`| ${key} | ${w.error} | | | | |`);
  else
    lines.push(
      `| ${key} | ${kb(w.heapPerWorkflow)} | ${kb(w.rssPerWorkflow)} | ${w.populateSeconds!.toFixed(1)} s | ${w.readySeconds! < 1 ? `${(w.readySeconds! * 1000).toFixed(0)} ms` : `${w.readySeconds!.toFixed(1)} s`} | ${(w.rssWhenReady! / 2 ** 20).toFixed(0)} MB |`,
    );
}
console.log(lines.join('\n'));
