/**
 * How long each `statewright` command takes from a cold start to its exit (#44), beside `node -e 0`
 * measured in the same rounds: scripts and agents call the CLI hundreds of times. Each command runs
 * as a user runs it (`node bin/statewright.js ...`); its CPU (user + system, from `process.cpuUsage`
 * at exit, written by a preloaded file that the baseline loads too) and its wall time are taken,
 * best of the rounds, and printed with their ratio to the baseline's best. The commands run on a
 * SQLite store, then again through a `statewright serve` on that store (found beside it, as a user's
 * CLI finds it). Build first (`npm run build`).
 *
 *   npx tsx bench/cli-startup.bench.ts [--rounds 5]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { lifecycles } from '../machines/index.js';
import { createRuntime } from '../src/runtime/index.js';
import { sqliteStore } from '../src/stores/index.js';
import { printFigures } from './measure.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { rounds: { type: 'string' } }, strict: false });
const ROUNDS = Number(values.rounds ?? 5);
const bin = fileURLToPath(new URL('../bin/statewright.js', import.meta.url));

const home = mkdtempSync(join(tmpdir(), 'statewright-cli-bench-'));
const store = `sqlite:${join(home, 'runs.db')}`;
// Written to fd 3 as the process exits, however it exits: its whole CPU, the preload's included (the baseline's too).
const cpuAtExit = join(home, 'cpu-at-exit.cjs');
writeFileSync(
  cpuAtExit,
  "process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeSync(3, String(u.user + u.system)); });\n",
);

interface Sample {
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** Runs `node <args>` to its exit; refuses a non-zero exit (a command that failed measured nothing). */
function run(args: readonly string[]): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-r', cpuAtExit, ...args], {
      cwd: home,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { ...process.env, STATEWRIGHT_STORE: store, STATEWRIGHT_SERVER: '', STATEWRIGHT_TOKEN: '' },
    });
    let err = '';
    let cpu = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk));
    child.stdio[3]!.on('data', (chunk: Buffer) => (cpu += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited with ${code}: ${err}`));
      else resolve({ cpuMs: Number(cpu) / 1000, wallMs });
    });
  });
}

/** Runs made up front: each `send` moves a run of its own out of `pending`. */
const runIds = (prefix: string) => Array.from({ length: ROUNDS + 1 }, (_, i) => `${prefix}-${i}`);
const sqliteRuns = runIds('s');
const serveRuns = runIds('v');
{
  const sqlite = await sqliteStore(join(home, 'runs.db'));
  const runtime = await createRuntime({ store: sqlite, machines: lifecycles, recover: false });
  for (const id of [...sqliteRuns, ...serveRuns]) await runtime.start('execution', { id });
  await runtime.close();
  await sqlite.close();
}

interface Case {
  readonly name: string;
  readonly args: (round: number) => readonly string[];
}
const baseline: Case = { name: 'node -e 0 (baseline)', args: () => ['-e', '0'] };
const cli = (...words: string[]) => [bin, ...words];
const storeCommands = (runs: readonly string[]): Case[] => [
  { name: 'send', args: (round) => cli('send', runs[round]!, '{"type":"ENQUEUE"}') },
  { name: 'start', args: () => cli('start', 'execution') },
  { name: 'status', args: () => cli('status') },
  { name: 'explain', args: (round) => cli('explain', runs[round]!) },
  { name: 'history', args: (round) => cli('history', runs[round]!) },
];

/** Round 0 warms the file cache and is not kept; each round runs every case once, the baseline first. */
async function measureAll(cases: readonly Case[]): Promise<Sample[][]> {
  const samples = cases.map(() => [] as Sample[]);
  for (let round = 0; round <= ROUNDS; round++)
    for (const [i, each] of cases.entries()) {
      const sample = await run(each.args(round));
      if (round > 0) samples[i]!.push(sample);
    }
  return samples;
}

function print(title: string, cases: readonly Case[], samples: Sample[][], target: string): void {
  const best = (list: Sample[], key: keyof Sample) => Math.min(...list.map((sample) => sample[key]));
  const base = samples[0]!;
  printFigures(
    title,
    ['command', 'CPU (best)', 'vs baseline', 'wall (best)', 'vs baseline'],
    cases.map((each, i) => [
      each.name,
      `${best(samples[i]!, 'cpuMs').toFixed(0)} ms`,
      `${(best(samples[i]!, 'cpuMs') / best(base, 'cpuMs')).toFixed(2)}x`,
      `${best(samples[i]!, 'wallMs').toFixed(0)} ms`,
      `${(best(samples[i]!, 'wallMs') / best(base, 'wallMs')).toFixed(2)}x`,
    ]),
    target,
  );
}

const load = () => loadavg()[0]!.toFixed(1);
let serve: ReturnType<typeof spawn> | undefined;
try {
  const loadBefore = load();
  const alone: Case[] = [
    baseline,
    { name: '--version', args: () => cli('--version') },
    { name: 'help', args: () => cli('help') },
    ...storeCommands(sqliteRuns).map((each) => ({ ...each, name: `${each.name} (SQLite)` })),
  ];
  print(
    `\`statewright\` start-up, best of ${ROUNDS} (load average ${loadBefore} -> ${load()} on ${availableParallelism()} cores)`,
    alone,
    await measureAll(alone),
    '--version and help within 1.5x of node -e 0; the SQLite commands within 2.5x (idle machine).',
  );

  // The CLI finds this serve from the file it keeps beside the store, as a user's finds it.
  serve = spawn(process.execPath, [bin, 'serve', '--port', '0', '--store', store], {
    cwd: home,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    serve!.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    serve!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      if (/runs restored.*; stop with Ctrl-C/.test(out)) resolve();
    });
  });
  serve.removeAllListeners('exit');
  const loadServe = load();
  const through: Case[] = [
    baseline,
    ...storeCommands(serveRuns).map((each) => ({ ...each, name: `${each.name} (through serve)` })),
  ];
  print(
    `\`statewright\` through a running serve, best of ${ROUNDS} (load average ${loadServe} -> ${load()})`,
    through,
    await measureAll(through),
    'each within 2x of node -e 0 (idle machine).',
  );
} finally {
  if (serve?.pid && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    process.kill(-serve.pid, 'SIGTERM');
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
}
