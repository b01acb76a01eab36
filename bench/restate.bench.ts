/**
 * statewright on Restate beside statewright on SQLite and on Postgres, and beside the same machine
 * served by `@restatedev/xstate` (Restate's own XState binding) on the same node, in the same run:
 * durable events per second through each host's `dispatch` (the binding's `send` through the
 * ingress), every contender timed in alternating rounds against the SQLite host (the baseline), so
 * the ratios are what to read:
 * - one run, each event awaited;
 * - 100 runs at once, each awaiting its own events (group commit at work on the stores);
 * - on one Restate node, a run that holds 3,000 events beside a fresh one (each step rewrites the
 *   history's page being filled, history-pages.ts: a long history must cost a step nothing more);
 * - on one Restate node, reading a history of 1,000 entries beside reading the run's snapshot.
 * Restate runs as one node and as a three-node cluster (replication 2) from the npm package, with
 * the endpoints served by this process, as the tests run it. `--no-cluster` leaves the cluster out;
 * `--rounds N` times N rounds (default 5). The events cycle running -> recovering -> running, so a
 * run never ends.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as restate from '@restatedev/restate-sdk';
import { xstate } from '@restatedev/xstate';
import pg from 'pg';
import { lifecycles } from '../machines/index.js';
import { executionMachine } from '../machines/execution/index.js';
import { AdminClient, restateEndpoint, restateRuntime } from '../src/restate/index.js';
import { IngressClient } from '../src/restate/ingress-client.js';
import { createRuntime, type Runtime } from '../src/runtime/index.js';
import { postgresStore, sqliteStore } from '../src/stores/index.js';
import { startRestateCluster } from '../test/restate/restate-cluster.js';
import { startRestateNode } from '../test/restate/restate-node.js';
import { interleavedAll, printTable, type Contender } from './measure.js';

const CYCLE = ['RECOVER', 'START'] as const;
const { values } = parseArgs({ args: process.argv.slice(2), options: { rounds: { type: 'string' } }, strict: false });
const ROUNDS = Number(values.rounds ?? 5);
/** The events a run holds before the long-history row times it. */
const GROWN = 3_000;
/** The entries of the history whose read is timed beside a snapshot's. */
const HISTORY_READ = 1_000;
const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** What the rows drive: statewright's runtimes and clients, and the binding's object through the ingress. */
interface Host {
  start(machine: 'execution'): Promise<{ runId: string }>;
  dispatch(runId: string, event: { type: string }): Promise<unknown>;
}

interface OpenHost {
  readonly name: string;
  readonly host: Host;
  close(): Promise<void>;
}

/** A Restate host, whose client reads runs too. */
interface RestateHost extends OpenHost {
  readonly reader: Pick<Runtime, 'getSnapshot' | 'history'>;
}

const closers: Array<() => Promise<unknown>> = [];

async function sqliteHost(): Promise<OpenHost> {
  const dir = mkdtempSync(join(tmpdir(), 'statewright-bench-restate-'));
  const store = sqliteStore(join(dir, 'state.db'));
  const rt = await createRuntime({ store, machines: lifecycles });
  return {
    name: 'SQLite',
    host: rt,
    close: async () => {
      await rt.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresHost(): Promise<OpenHost | string> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await probe.connect();
  } catch (error) {
    return (error as Error).message;
  }
  const schema = `sw_bench_${randomBytes(5).toString('hex')}`;
  const store = await postgresStore({ connectionString: url, schema });
  const rt = await createRuntime({ store, machines: lifecycles });
  return {
    name: 'Postgres',
    host: rt,
    close: async () => {
      await rt.close();
      await store.close();
      await probe.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await probe.end();
    },
  };
}

/** Restate nodes (one, or a cluster) with the endpoint served here and registered, and a client on every ingress. */
async function restateHost(
  name: string,
  nodes: ReadonlyArray<{ ingress: string; admin: string; token: string }>,
  stop: () => Promise<void>,
): Promise<RestateHost> {
  const endpoint = restateEndpoint({ machines: lifecycles, token: nodes[0]!.token });
  const listening = await endpoint.listen(0);
  await new AdminClient(nodes[0]!.admin).register(listening.url);
  const client = restateRuntime({
    ingress: nodes.map((n) => n.ingress),
    admin: nodes[0]!.admin,
    token: nodes[0]!.token,
  });
  // Every ingress knows the run objects before anything is timed.
  for (const node of nodes) {
    const one = restateRuntime({ ingress: node.ingress, admin: node.admin, token: node.token });
    for (;;) {
      try {
        await one.start('execution');
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
  return {
    name,
    host: client,
    reader: client,
    close: async () => {
      await client.close();
      await listening.close();
      await stop();
    },
  };
}

/**
 * The execution machine served by `@restatedev/xstate` on the same node (an endpoint of its own in
 * this process), its `create` and `send` called through the ingress with an idempotency key each,
 * as statewright's client calls its run objects.
 */
async function xstateHost(node: { ingress: string; admin: string }): Promise<OpenHost> {
  const service = xstate('xstate-execution', executionMachine);
  const server = http2.createServer(restate.createEndpointHandler({ services: [service], logger: () => {} }));
  const sessions = new Set<http2.Http2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new AdminClient(node.admin).register(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const ingress = new IngressClient(node.ingress);
  return {
    name: '@restatedev/xstate, 1 node',
    host: {
      start: async () => {
        const runId = randomUUID();
        await ingress.call('xstate-execution', runId, 'create', {});
        return { runId };
      },
      dispatch: (runId, event) => ingress.call('xstate-execution', runId, 'send', { event }),
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        for (const session of sessions) session.destroy();
      }),
  };
}

async function runningRun(host: Host): Promise<string> {
  const { runId } = await host.start('execution');
  await host.dispatch(runId, { type: 'ENQUEUE' });
  await host.dispatch(runId, { type: 'START' });
  return runId;
}

/** `runs` runs, each dispatching `perRun` events one after another, all runs at once. */
async function contender(open: OpenHost, runs: number, perRun: number): Promise<Contender> {
  const ids = await Promise.all(Array.from({ length: runs }, () => runningRun(open.host)));
  const cursors = new Map(ids.map((id) => [id, 0]));
  return {
    name: `${open.name}: ${runs === 1 ? '1 run' : `${runs} runs`}, each event awaited`,
    opsPerRound: runs * perRun,
    round: async () => {
      await Promise.all(
        ids.map(async (id) => {
          for (let n = 0; n < perRun; n++) {
            const i = cursors.get(id)!;
            cursors.set(id, i + 1);
            await open.host.dispatch(id, { type: CYCLE[i % 2]! });
          }
        }),
      );
    },
  };
}

try {
  const hosts: OpenHost[] = [];
  const sqlite = await sqliteHost();
  closers.push(sqlite.close);
  const postgres = await postgresHost();
  if (typeof postgres === 'string') console.log(`\nPostgres skipped: no server answers at ${url} (${postgres}).`);
  else {
    closers.push(postgres.close);
    hosts.push(postgres);
  }
  const node = await startRestateNode();
  const one = await restateHost('Restate, 1 node', [node], () => node.stop());
  closers.push(one.close);
  hosts.push(one);
  const binding = await xstateHost(node);
  closers.push(binding.close);
  if (!process.argv.includes('--no-cluster')) {
    const cluster = await startRestateCluster(3);
    const three = await restateHost('Restate, 3 nodes', cluster.nodes, () => cluster.stop());
    closers.push(three.close);
    hosts.push(three);
  }

  for (const [runs, perRun] of [
    [1, 100],
    [100, 5],
  ] as const) {
    const baseline = await contender(sqlite, runs, perRun);
    const candidates = await Promise.all(hosts.map((host) => contender(host, runs, perRun)));
    const [base, ...rows] = await interleavedAll(baseline, candidates, ROUNDS);
    printTable(runs === 1 ? 'One run, each event awaited' : `${runs} concurrent runs, each event awaited`, base!, [
      base!,
      ...rows,
    ]);
  }

  // statewright's run objects beside Restate's own binding, on the same node, in the same rounds.
  for (const [runs, perRun] of [
    [1, 100],
    [100, 5],
  ] as const) {
    const theirs = await contender(binding, runs, perRun);
    const ours = await contender(one, runs, perRun);
    const [base, row] = await interleavedAll(theirs, [ours], ROUNDS);
    printTable(
      `statewright beside @restatedev/xstate on one Restate node: ${runs === 1 ? 'one run' : `${runs} concurrent runs`}, each event awaited`,
      base!,
      [base!, row!],
      'at least 0.8x',
    );
  }

  // A step rewrites only the history's page being filled: a long history must not slow its sends.
  const grown = await contender(one, 1, 100);
  const start = await contender(one, 1, 100);
  for (let i = 0; i < GROWN / 100; i++) await grown.round();
  const [fresh, long] = await interleavedAll(
    { ...start, name: 'Restate, 1 node: a run with no history' },
    [{ ...grown, name: `Restate, 1 node: a run with ${GROWN.toLocaleString('en-US')} events` }],
    ROUNDS,
  );
  printTable('A long history on Restate, each event awaited', fresh!, [fresh!, long!], 'at least 0.9x');

  // Reading a history of HISTORY_READ entries (`history`, `explain`) beside reading the run's snapshot.
  const { reader } = one;
  const read = await runningRun(one.host);
  for (let i = 2; i < HISTORY_READ; i++) await one.host.dispatch(read, { type: CYCLE[i % 2]! });
  const reads = 5;
  const [snapshot, history] = await interleavedAll(
    {
      name: 'Restate, 1 node: the snapshot of a run',
      opsPerRound: reads,
      round: async () => {
        for (let i = 0; i < reads; i++) await reader.getSnapshot(read);
      },
    },
    [
      {
        name: `Restate, 1 node: its history of ${HISTORY_READ.toLocaleString('en-US')} entries`,
        opsPerRound: reads,
        round: async () => {
          for (let i = 0; i < reads; i++) await reader.history(read);
        },
      },
    ],
    ROUNDS,
  );
  printTable(
    'Reading a history on Restate, one read after another',
    snapshot!,
    [snapshot!, history!],
    "at least 0.5x (a history read in under 2x a snapshot's time)",
  );
} finally {
  for (const close of closers.reverse()) await close().catch((error: Error) => console.error(error.message));
}
