/**
 * The "done when": `statewright serve` on a temp SQLite store hosts a codon and a session
 * started through the API and through the CLI. Their stand-in agents run, a durable timer fires, and
 * a SIGTERM then a restart hand the running agents over: they survive, the new serve adopts them
 * (nothing is spawned twice, nothing is failed as orphaned), and it supervises them from then on.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { isSameProcessAlive } from '../../src/os/process-identity.js';
import { testDir } from '../stores/temp-dir.js';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { isolateGit, makeRepo } from '../support/git-repo.js';
import { api, startServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const agent = (name: string) => fileURLToPath(new URL(`../../examples/agents/${name}.sh`, import.meta.url));
const path = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

beforeAll(isolateGit);

/** Polls the API until the run rests in a state `wanted` accepts; returns the run. */
function reaches(url: string, runId: string, wanted: (state: string) => boolean) {
  return until(
    `${runId} to reach the state`,
    async () => {
      const { body } = await api(url, 'GET', path(runId));
      return body.run && wanted(body.run.state) ? body.run : undefined;
    },
    60_000,
    50,
  );
}

/** The pids the run's agent actor reported spawning, from its audit trail. */
async function spawned(url: string, runId: string): Promise<number[]> {
  const { body } = await api(url, 'GET', `${path(runId)}/history`);
  return body.events
    .filter((e: { event: { type: string } }) => e.event.type === 'agent.spawned')
    .map((e: { event: { pid: number } }) => e.event.pid);
}

it('hosts a codon and a session from the API and the CLI; agents run, timers fire, and a SIGTERM and restart adopt the agents', async () => {
  const dir = testDir('serve-hosting');
  const repo = await makeRepo();
  const store = `sqlite:${join(dir, 'state.db')}`;
  const cli = (...args: string[]) =>
    startCommand(process.execPath, [bin, ...args, '--store', store], { cwd: dir, reject: false });
  const codonInput = (runId: string, command: string, logName: string) => ({
    runId,
    codonId: 'notes',
    startedAt: Date.now(),
    workTree: repo.dir,
    agent: {
      command: [command],
      prompt: 'Write the notes.',
      logPath: join(dir, logName),
      env: { STANDIN_WRITE: 'NOTES.md' },
    },
  });

  // With no serve running, the CLI will not start a session that nothing would host.
  const early = await cli('start', 'session', '--id', 'nobody', '--input', '{"query":"hello"}', '--create');
  expect([early.exitCode, early.stderr]).toEqual([
    1,
    expect.stringMatching(
      /No statewright serve is running for this store, and session runs need one: .*npx statewright serve --store sqlite:/,
    ),
  ]);

  let server = await startServeProcess(dir, ['--store', store, '--create']);

  // A codon through the API: its stand-in agent runs and the codon completes.
  expect(
    await api(server.url, 'POST', '/api/runs', {
      machine: 'codon',
      id: 'run-1/notes/1',
      input: codonInput('run-1', agent('succeed'), 'codon-1.log'),
    }),
  ).toMatchObject({ status: 201 });
  const codon = await reaches(server.url, 'run-1/notes/1', (s) => s === 'completed' || s === 'failed');
  expect(codon.state).toBe('completed');
  expect(await spawned(server.url, 'run-1/notes/1')).toHaveLength(1);

  // A session through the CLI whose agent never reports its session id: the start timeout fires in serve.
  const slow = await cli(
    'start',
    'session',
    '--id',
    'slow',
    '--input',
    JSON.stringify({ query: 'wait', config: { command: ['sh', '-c', 'sleep 600', 'sh'], start_timeout_ms: 1000 } }),
  );
  expect([slow.exitCode, slow.stdout]).toEqual([0, `slow: starting (on ${server.url})`]);
  const timedOut = await reaches(server.url, 'slow', (s) => s !== 'starting');
  for (const pid of await spawned(server.url, 'slow')) endWithTest(pid);
  expect(timedOut).toMatchObject({
    state: 'failed',
    context: { error_message: expect.stringMatching(/timeout|timed out/i) },
  });

  // Two long-running agents: a session started through the CLI, a codon through the API.
  const signals = join(dir, 'signals.log');
  const started = await cli(
    'start',
    'session',
    '--id',
    's-1',
    '--input',
    JSON.stringify({
      query: 'work',
      config: { command: [agent('session-interruptible')], env: { STANDIN_SIGNAL_LOG: signals } },
    }),
  );
  expect(started.stdout).toBe(`s-1: starting (on ${server.url})`);
  await api(server.url, 'POST', '/api/runs', {
    machine: 'codon',
    id: 'run-2/notes/1',
    input: codonInput('run-2', agent('hang'), 'codon-2.log'),
  });
  await reaches(server.url, 's-1', (s) => s === 'running');
  await reaches(server.url, 'run-2/notes/1', (s) => s === 'running');
  const [sessionAgent] = await spawned(server.url, 's-1');
  const [codonAgent] = await spawned(server.url, 'run-2/notes/1');
  endWithTest(sessionAgent);
  endWithTest(codonAgent);
  const pidStart = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
  const identities = [sessionAgent!, codonAgent!].map((pid) => ({ pid, start: pidStart(pid) }));

  // SIGTERM: a graceful stop that hands the agents over instead of ending them.
  expect(await server.stop('SIGTERM')).toBe(0);
  expect(server.stdout()).toMatch(/SIGTERM: applying what is queued and handing the runs over\nstopped\n$/);
  for (const { pid, start } of identities) expect(isSameProcessAlive(pid, start)).toBe(true);
  expect(readdirSync(join(dir, 'state.db.serve'))).toEqual([]);
  expect(existsSync(signals)).toBe(false); // the session's agent was not signalled

  // The next serve adopts them: both runs stay where they were, no agent is spawned again.
  server = await startServeProcess(dir, ['--store', store]);
  expect(server.stdout()).toMatch(/2 runs restored, 2 handed over by the last serve/);
  // (A run names the owner of its last commit: the previous serve's, until the new one commits to it.)
  expect(await api(server.url, 'GET', path('s-1'))).toMatchObject({ body: { run: { state: 'running' } } });
  expect((await api(server.url, 'GET', path('run-2/notes/1'))).body.run.state).toBe('running');
  expect(await spawned(server.url, 's-1')).toEqual([sessionAgent]);
  expect(await spawned(server.url, 'run-2/notes/1')).toEqual([codonAgent]);
  expect(existsSync(join(dir, 'state.db.handover.json'))).toBe(false);

  // And supervises them: an interrupt sent through the CLI reaches the adopted agent, whose exit is seen.
  // The interrupt waits for the agent's last words: the session runs on until its exit fails it.
  const interrupted = await cli('send', 's-1', '{"type":"INTERRUPT","reason":"enough"}', '--actor', 'alice');
  expect([interrupted.exitCode, interrupted.stdout]).toEqual([0, expect.stringMatching(/^s-1: (running|failed) /)]);
  await until(
    'the adopted session agent to get its SIGINT',
    () => existsSync(signals) && readFileSync(signals, 'utf8').includes('INT'),
  );
  await until('the adopted session agent to exit', () => !isSameProcessAlive(identities[0]!.pid, identities[0]!.start));
  expect(await reaches(server.url, 's-1', (s) => s !== 'running')).toMatchObject({
    state: 'failed',
    context: { error_message: 'Interrupted: enough' },
  });
  process.kill(-codonAgent!, 'SIGTERM');
  const ended = await reaches(server.url, 'run-2/notes/1', (s) => s !== 'running');
  expect(ended.state).toBe('failed');

  // Status shows every run with its owner.
  const status = await cli('status', '--machine', 'session', '--json');
  expect(JSON.parse(status.stdout).runs.map((r: { runId: string; state: string }) => `${r.runId} ${r.state}`)).toEqual([
    's-1 failed',
    'slow failed',
  ]);
  expect(await server.stop('SIGINT')).toBe(0);
  repo.remove();
}, 240_000);
