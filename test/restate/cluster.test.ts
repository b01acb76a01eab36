/**
 * The lifecycles on a three-node Restate cluster (test/restate/restate-cluster.ts) through a
 * `statewright worker` process and clients on all three ingresses: execution runs driven event by
 * event, a session whose stand-in agent runs in the worker, a task whose lease expires by its
 * durable timer, and the config's reminder (test/restate/cluster.config.mjs) due by its own. Mid-run
 * one node is killed with SIGKILL (and started again), then the worker (and started again at the
 * same address). Then: every acknowledged event is in its run's history exactly once and in order,
 * the agent was spawned once and adopted, and each timer fired once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { readPidRecord } from '../../src/actors/pid-record.js';
import { isProcessAlive, signalGroup } from '../../src/os/process-identity.js';
import { restateRuntime, type RestateRuntime } from '../../src/restate/index.js';
import { UnknownRunError } from '../../src/runtime/errors.js';
import { startCommand } from '../support/child-processes.js';
import { until } from '../support/until.js';
import { startRestateCluster, type RestateCluster } from './restate-cluster.js';
import { freePort } from './restate-node.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

const agent = fileURLToPath(new URL('../../examples/agents/until-file.sh', import.meta.url));
const config = fileURLToPath(new URL('./cluster.config.mjs', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

/** Execution runs, each driven through one of the ingresses, and the RECOVER/START rounds each gets. */
const RUNS = 6;
const ROUNDS = 30;

let cluster: RestateCluster;
let dir: string;
let clients: RestateRuntime[] = [];

beforeAll(async () => {
  cluster = await startRestateCluster(3);
  dir = mkdtempSync(join(tmpdir(), 'statewright-restate-cluster-run-'));
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('loses nothing and doubles nothing across a node and a worker killed with SIGKILL', {
  timeout: 300_000,
}, async () => {
  const { nodes } = cluster;
  console.log(`three-node cluster serving in ${cluster.formedInMs} ms`);
  const ingresses = nodes.map((node) => node.ingress);
  // Each client tries its own node's ingress first, then the others.
  clients = nodes.map((node, i) =>
    restateRuntime({
      ingress: [...ingresses.slice(i), ...ingresses.slice(0, i)],
      admin: node.admin,
      token: node.token,
    }),
  );
  const port = await freePort();
  const home = join(dir, 'home');
  const worker = () =>
    until(
      'the worker to register with the cluster',
      () =>
        startWorkerProcess({ admin: nodes[0]!.admin, ingress: ingresses, port, home, cwd: dir, config }).catch(
          () => undefined,
        ),
      60_000,
      500,
    );
  let current: WorkerProcess = await worker();
  for (const client of clients)
    await until('every ingress to know the run objects', () =>
      client.getSnapshot('no-such-run').then(
        () => false,
        (error: unknown) => error instanceof UnknownRunError,
      ),
    );

  // The session's agent works until released; it leads its own process group, ended with the test.
  const release = join(dir, 'release');
  const logPath = join(home, 's1.jsonl');
  onTestFinished(() => {
    const recorded = readPidRecord(`${logPath}.pid`);
    if (recorded) signalGroup(recorded.pid, 'SIGKILL');
  });
  await clients[0]!.start('session', {
    id: 's1',
    input: {
      query: 'q',
      config: { command: [agent], env: { STANDIN_RELEASE_FILE: release } },
      created_at: Date.now(),
      log_path: logPath,
    },
  });
  await clients[1]!.start('task', { id: 't1', input: { lease: { ttlMs: 8_000 } } });
  await clients[1]!.dispatch('t1', { type: 'create_task', agent: 'supervisor:claude:1', task: 'Add a flag' } as never);
  const claimed = await clients[2]!.dispatch('t1', { type: 'claim', agent: 'executor:codex:1' } as never);
  await clients[2]!.start('reminder', { id: 'r1', input: { dueAt: Date.now() + 8_000 } });

  // The execution runs, each event dispatched once and recorded as acknowledged when it resolves.
  const acknowledged = new Map<string, string[]>();
  let acked = 0;
  let slowest = 0;
  const drive = async (i: number) => {
    const client = clients[i % clients.length]!;
    const runId = `e${i}`;
    const acks: string[] = [];
    acknowledged.set(runId, acks);
    await client.start('execution', { id: runId });
    const events = ['ENQUEUE', 'START', ...Array.from({ length: ROUNDS }, () => ['RECOVER', 'START']).flat()];
    for (const type of events) {
      const began = Date.now();
      await client.dispatch(runId, { type } as never);
      slowest = Math.max(slowest, Date.now() - began);
      acks.push(type);
      acked++;
    }
  };
  const driving = Promise.all(Array.from({ length: RUNS }, (_, i) => drive(i)));
  const total = RUNS * (2 + 2 * ROUNDS);

  await until('a third of the events', () => acked >= total / 3, 120_000);
  await nodes[1]!.kill();
  await until('two thirds of the events', () => acked >= (2 * total) / 3, 120_000);
  await nodes[1]!.restart();

  const running = await until('the session to run', async () => {
    const run = await clients[0]!.getSnapshot('s1');
    return run.state === 'running' && run.context.agent?.pid ? run : undefined;
  });
  const { pid, pid_start: pidStart } = running.context.agent as { pid: number; pid_start: string };
  await current.kill();
  expect(isProcessAlive({ pid, pidStart })).toBe(true);
  current = await worker();
  expect(current.adopted).toBeGreaterThanOrEqual(1);
  writeFileSync(release, '');

  await driving;
  for (const [i, client] of clients.entries())
    await client.dispatch('r1', { type: 'PING' } as never, { actor: `n${i + 1}` });
  // The CLI on the cluster: every ingress given, the killed node's first.
  const engine = [
    '--engine',
    `restate:${[ingresses[1], ingresses[2], ingresses[0]].join(',')}`,
    '--restate-admin',
    nodes[0]!.admin,
  ];
  const cli = async (...args: string[]) => {
    const result = await startCommand(process.execPath, [bin, ...args, ...engine], {
      cwd: dir,
      reject: false,
      env: {
        STATEWRIGHT_CONFIG: config,
        STATEWRIGHT_STORE: '',
        STATEWRIGHT_SERVER: '',
        STATEWRIGHT_RESTATE_TOKEN: nodes[0]!.token,
      },
    });
    return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
  };
  expect(await cli('send', 'r1', 'PING', '--actor', 'cli')).toMatchObject({ code: 0 });
  const listed = await cli('status', '--machine', 'reminder');
  expect(listed.out, listed.err).toMatch(/^r1\s+reminder\s+(waiting|due)\s+active/m);
  const session = await until(
    'the session to complete',
    async () => {
      const run = await clients[1]!.getSnapshot('s1');
      return run.status === 'done' ? run : undefined;
    },
    60_000,
  );
  await until('the reminder to be due', async () => (await clients[2]!.getSnapshot('r1')).state === 'due', 60_000);
  await until('the lease to expire', async () => (await clients[0]!.getSnapshot('t1')).context.leaseExpired, 60_000);

  // Every acknowledged event once, in order, and nothing else.
  for (const [runId, acks] of acknowledged) {
    const history = await clients[0]!.history(runId);
    expect(
      history.map((e) => e.event.type),
      runId,
    ).toEqual(acks);
    expect(history.map((e) => e.seq)).toEqual(acks.map((_, n) => n + 1));
  }
  expect(acked).toBe(total);
  // The agent spawned once, adopted across the worker's kill, its reports applied once.
  expect(session.state).toBe('completed');
  expect(session.context.agent).toMatchObject({ pid, pid_start: pidStart });
  const sessionHistory = await clients[2]!.history('s1');
  const count = (history: { event: { type: string } }[], type: string) =>
    history.filter((e) => e.event.type === type).length;
  expect(
    ['agent.spawned', 'agent.session', 'agent.result', 'agent.exited'].map((t) => count(sessionHistory, t)),
  ).toEqual([1, 1, 1, 1]);
  // Each timer fired once, by the timer, at its deadline.
  const reminder = await clients[0]!.history('r1');
  expect(reminder.filter((e) => e.event.type === 'DUE')).toEqual([
    expect.objectContaining({ actor: 'timer', before: 'waiting', after: 'due' }),
  ]);
  expect(
    reminder
      .filter((e) => e.event.type === 'PING')
      .map((e) => e.actor)
      .sort(),
  ).toEqual(['cli', 'n1', 'n2', 'n3']);
  const task = await clients[1]!.history('t1');
  const expired = task.filter((e) => e.event.type === 'lease_expired');
  expect(expired).toHaveLength(1);
  expect(expired[0]).toMatchObject({
    actor: 'timer',
    at: (claimed.context.lease as { leaseUntil: number }).leaseUntil,
  });
  const rss = nodes.map((node) => {
    const status = node.pid === undefined ? '' : readFileSync(`/proc/${node.pid}/status`, 'utf8');
    return `${Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024)} MB`;
  });
  console.log(
    `${acked} acknowledged events on ${RUNS} runs, the slowest call ${slowest} ms; nodes' RSS ${rss.join(', ')}`,
  );
  await current.kill();
});
