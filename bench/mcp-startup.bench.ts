/**
 * How much CPU `statewright mcp` spends before it answers `initialize` (#41): an agent starts it and
 * waits only so long (Codex starts its first turn without a server that has not answered). Each
 * mode is started as an agent starts it (`node bin/statewright.js mcp ...`, stdio), sent
 * `initialize`, and the process's CPU time (user + system, from /proc/<pid>/stat) read the moment
 * the answer arrives; the baseline is `node` itself answering one line on stdin, measured in the
 * same rounds. Build first (`npm run build`). Linux only (/proc).
 *
 *   npx tsx bench/mcp-startup.bench.ts [--rounds 7]
 *
 * The modes: `--task <dir> --as executor:codex:1` (a ferrus project folder), `--run <id>` on a
 * store with no serve (a run of a machine that needs no host), and the session mode serve gives
 * its sessions (`STATEWRIGHT_SESSION_ID`, `--server`): that one asks the server for the session
 * before it serves, so a stand-in HTTP server answers that one request here (serve itself is not
 * what is measured).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { lifecycles } from '../machines/index.js';
import { createRuntime } from '../src/runtime/index.js';
import { sqliteStore } from '../src/stores/index.js';
import { median, printFigures } from './measure.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { rounds: { type: 'string' } }, strict: false });
const ROUNDS = Number(values.rounds ?? 7);
const bin = fileURLToPath(new URL('../bin/statewright.js', import.meta.url));
const TICKS_PER_SECOND = 100; // USER_HZ: what /proc/<pid>/stat counts in

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/** The CPU milliseconds of `args` when its first line of output arrives, after one line sent to it. */
function cpuUntilAnswer(args: readonly string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before answering: ${err}`)));
    child.stdout.once('data', () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      child.removeAllListeners('exit');
      child.kill('SIGKILL');
      resolve((ticks / TICKS_PER_SECOND) * 1000);
    });
    child.stdin.write(INITIALIZE);
  });
}

const home = mkdtempSync(join(tmpdir(), 'statewright-mcp-bench-'));
const storePath = join(home, 'runs.db');
{
  const store = await sqliteStore(storePath);
  const runtime = await createRuntime({ store, machines: lifecycles, recover: false });
  await runtime.start('execution', { id: 'e-1' });
  await runtime.close();
  await store.close();
}
const standIn = createServer((_request, response) => {
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ run: { runId: 's-1', machine: 'session', state: 'running', seq: 1, context: {} } }));
});
await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
const { port } = standIn.address() as { port: number };

const modes: ReadonlyArray<{ name: string; run: () => Promise<number> }> = [
  {
    name: 'node answering one line (baseline)',
    run: () => cpuUntilAnswer(['-e', "process.stdin.once('data', () => console.log('{}'))"]),
  },
  {
    name: 'mcp --task (executor)',
    run: () => cpuUntilAnswer([bin, 'mcp', '--task', home, '--as', 'executor:codex:1']),
  },
  {
    name: 'mcp --run (no serve)',
    run: () => cpuUntilAnswer([bin, 'mcp', '--run', 'e-1', '--store', `sqlite:${storePath}`]),
  },
  {
    name: "mcp, serve's session mode",
    run: () =>
      cpuUntilAnswer([bin, 'mcp', '--server', `http://127.0.0.1:${port}`], {
        STATEWRIGHT_SESSION_ID: 's-1',
        STATEWRIGHT_TOKEN: 'bench',
      }),
  },
];

try {
  const samples = modes.map(() => [] as number[]);
  for (let round = 0; round <= ROUNDS; round++)
    for (const [i, mode] of modes.entries()) {
      const cpu = await mode.run();
      if (round > 0) samples[i]!.push(cpu); // round 0 warms the file cache
    }
  const base = samples[0]!.map((cpu) => cpu);
  printFigures(
    '`statewright mcp`: CPU until `initialize` is answered',
    ['mode', 'CPU (median)', 'vs baseline (median of the rounds)'],
    modes.map((mode, i) => [
      mode.name,
      `${median(samples[i]!).toFixed(0)} ms`,
      `${median(samples[i]!.map((cpu, round) => cpu / base[round]!)).toFixed(2)}x`,
    ]),
    'each mode within 300 ms of CPU.',
  );
} finally {
  standIn.close();
  rmSync(home, { recursive: true, force: true });
}
