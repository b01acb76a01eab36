/**
 * `statewright worker` and `--engine restate:` against one Restate node: the worker (the built CLI,
 * a process of its own) registers its endpoint, a session started with `statewright start --engine`
 * spawns its stand-in agent in the worker, the worker is killed with SIGKILL while the agent works,
 * and a worker started again at the same address takes the agent over (same pid and start time)
 * instead of spawning another; the agent's exit is reported once, and the CLI's status, history,
 * explain and send read and move the runs on Restate. A worker stopped with SIGTERM hands its agent
 * over the same way; a task's checks (its ferrus.toml's commands) run in the worker too.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { readPidRecord } from '../../src/actors/pid-record.js';
import { restateRuntime, type RestateRuntime } from '../../src/restate/index.js';
import { isProcessAlive, signalGroup } from '../../src/os/process-identity.js';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { until } from '../support/until.js';
import { freePort, startRestateNode, type RestateNode } from './restate-node.js';
import { startWorkerProcess } from './worker-process.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const agent = fileURLToPath(new URL('../../examples/agents/until-file.sh', import.meta.url));

let node: RestateNode;
let dir: string;
let client: RestateRuntime;

beforeAll(async () => {
  node = await startRestateNode();
  dir = mkdtempSync(join(tmpdir(), 'statewright-restate-worker-'));
  client = restateRuntime({ ingress: node.ingress, admin: node.admin, token: node.token });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = async (...args: string[]) => {
  const result = await startCommand(
    process.execPath,
    [bin, ...args, '--engine', `restate:${node.ingress}`, '--restate-admin', node.admin],
    {
      cwd: dir,
      reject: false,
      env: {
        STATEWRIGHT_CONFIG: '',
        STATEWRIGHT_STORE: '',
        STATEWRIGHT_SERVER: '',
        STATEWRIGHT_RESTATE_TOKEN: node.token,
      },
    },
  );
  return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
};

it("runs a session's agent in the worker, and a worker started after a SIGKILL adopts it instead of spawning another", {
  timeout: 180_000,
}, async () => {
  const port = await freePort();
  const home = join(dir, 'home');
  const worker = () => startWorkerProcess({ admin: node.admin, ingress: [node.ingress], port, home, cwd: dir });
  const first = await worker();
  expect(first.adopted).toBe(0);

  const release = join(dir, 'release');
  // Just the query and config, as on a store: the worker's run object fills created_at and log_path (under its home).
  const input = { query: 'work until released', config: { command: [agent], env: { STANDIN_RELEASE_FILE: release } } };
  const logPath = join(home, 'sessions', 's1.jsonl');
  const before = Date.now();
  const started = await cli('start', 'session', '--id', 's1', '--input', JSON.stringify(input));
  // The agent leads a process group of its own, which outlives the worker: ended with the test, however it ends.
  onTestFinished(() => {
    const recorded = readPidRecord(`${logPath}.pid`);
    if (recorded) signalGroup(recorded.pid, 'SIGKILL');
  });
  expect(started).toMatchObject({ code: 0, out: 's1: starting (on Restate)' });
  const { created_at: createdAt, log_path: filled } = (await client.getSnapshot('s1')).context;
  expect(filled).toBe(logPath);
  expect(createdAt).toBeGreaterThanOrEqual(before);
  const running = await until('the session to run', async () => {
    const run = await client.getSnapshot('s1');
    return run.state === 'running' && run.context.agent?.pid ? run : undefined;
  });
  const { pid, pid_start: pidStart } = running.context.agent as { pid: number; pid_start: string };
  endWithTest(pid);

  await first.kill();
  expect(isProcessAlive({ pid, pidStart })).toBe(true);

  const second = await worker();
  expect(second.adopted).toBe(1);
  writeFileSync(release, '');
  const done = await until(
    'the session to complete',
    async () => {
      const run = await client.getSnapshot('s1');
      return run.status === 'done' ? run : undefined;
    },
    60_000,
  );
  expect(done.state).toBe('completed');
  expect(done.context.agent).toMatchObject({ pid, pid_start: pidStart });
  const history = await client.history('s1');
  const count = (type: string) => history.filter((e) => e.event.type === type).length;
  expect([count('agent.spawned'), count('agent.session'), count('agent.result'), count('agent.exited')]).toEqual([
    1, 1, 1, 1,
  ]);
  expect(new Set(history.map((e) => e.seq)).size).toBe(history.length);

  // The CLI reads and moves the runs on Restate.
  const status = await cli('status', '--machine', 'session');
  expect(status.code).toBe(0);
  expect(status.out).toMatch(/^s1\s+session\s+completed\s+done\s+\d+/m);
  const trail = await cli('history', 's1');
  expect(trail.out).toContain('starting --agent.spawned--> starting');
  const why = await cli('explain', 's1', '--json');
  expect(JSON.parse(why.out)).toMatchObject({
    runId: 's1',
    state: 'completed',
    status: 'done',
    hostedOn: { engine: 'restate', object: 'statewright-session', key: 's1' },
  });
  expect((await cli('explain', 's1')).out).toContain(
    'owner: on Restate: its virtual object statewright-session (key s1), served by the worker',
  );
  expect(await cli('start', 'execution', '--id', 'e1')).toMatchObject({ code: 0 });
  expect(await cli('send', 'e1', '{"type":"ENQUEUE"}', '--actor', 'ci')).toMatchObject({
    code: 0,
    out: 'e1: queued (active, 1 events, on Restate)',
  });
  const refused = await cli('send', 'e1', '{"type":"SUCCEED"}');
  expect(refused.code).toBe(1);
  expect(refused.err).toContain("cannot apply event 'SUCCEED' in state 'queued'");
  await second.kill();
  expect(existsSync(release)).toBe(true);
});

it('hands a running agent over on SIGTERM, and the next worker adopts it', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const home = join(dir, 'home-2');
  const worker = () => startWorkerProcess({ admin: node.admin, ingress: [node.ingress], port, home, cwd: dir });
  const first = await worker();
  const release = join(dir, 'release-2');
  const logPath = join(home, 's2.jsonl');
  onTestFinished(() => {
    const recorded = readPidRecord(`${logPath}.pid`);
    if (recorded) signalGroup(recorded.pid, 'SIGKILL');
  });
  await client.start('session', {
    id: 's2',
    input: {
      query: 'q',
      config: { command: [agent], env: { STANDIN_RELEASE_FILE: release } },
      created_at: Date.now(),
      log_path: logPath,
    },
  });
  const running = await until('the session to run', async () => {
    const run = await client.getSnapshot('s2');
    return run.state === 'running' && run.context.agent?.pid ? run : undefined;
  });
  const { pid, pid_start: pidStart } = running.context.agent as { pid: number; pid_start: string };
  expect(await first.stop('SIGTERM')).toBe(0);
  expect(first.stdout()).toContain('SIGTERM: handing the actors over');
  expect(isProcessAlive({ pid, pidStart })).toBe(true);
  const second = await worker();
  expect(second.adopted).toBe(1);
  writeFileSync(release, '');
  const done = await until(
    'the session to complete',
    async () => {
      const run = await client.getSnapshot('s2');
      return run.status === 'done' ? run : undefined;
    },
    60_000,
  );
  expect(done).toMatchObject({ state: 'completed', context: { agent: { pid, pid_start: pidStart } } });
  const history = await client.history('s2');
  expect(history.filter((e) => e.event.type === 'agent.spawned')).toHaveLength(1);
  expect(history.filter((e) => e.event.type === 'agent.exited')).toHaveLength(1);
  await second.kill();
});

it("runs a task's checks in the worker and reports their result", { timeout: 120_000 }, async () => {
  const taskDir = join(dir, 'project');
  mkdirSync(taskDir, { recursive: true });
  writeFileSync(join(taskDir, 'ferrus.toml'), '[checks]\ncommands = ["echo checked", "test -f ferrus.toml"]\n');
  const port = await freePort();
  const worker = await startWorkerProcess({
    admin: node.admin,
    ingress: [node.ingress],
    port,
    home: join(dir, 'home-3'),
    cwd: dir,
    taskDir,
  });
  await client.start('task', { id: 't1' });
  await client.dispatch('t1', { type: 'create_task', agent: 'supervisor:claude:1', task: 'Add a flag' } as never);
  await client.dispatch('t1', { type: 'claim', agent: 'executor:codex:1' } as never);
  const checking = await client.dispatch('t1', { type: 'check', agent: 'executor:codex:1' } as never);
  expect(checking.state).toBe('Active.Working.Checking.Running');
  const passed = await until('the checks to pass', async () => {
    const run = await client.getSnapshot('t1');
    return run.state === 'Active.Working.Checking.Passed' ? run : undefined;
  });
  const history = await client.history('t1');
  expect(history.filter((e) => e.event.type === 'check_passed')).toHaveLength(1);
  expect(passed.seq).toBe(history.length);
  await worker.kill();
});
