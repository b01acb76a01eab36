/**
 * A Restate server for the tests, started from the npm package's binary itself (not the `.bin`
 * wrapper, so its pid is the server's own and `kill -9` reaches it), on loopback with free ports and
 * a temporary base dir, RocksDB held to 512 MiB. One node alone (`startRestateNode()`), or one node of
 * a cluster (`metadata`: every node's fabric address, `autoProvision` on one node only). `stop` kills
 * it and waits for the exit; `restart` starts it again on the same ports and base dir. `token` is the
 * one token this test process's workers and clients share (the run objects refuse calls without it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { until } from '../support/until.js';

/** The run objects' token for every worker and client of this test process (the nodes of a cluster share it). */
export const RESTATE_TEST_TOKEN = randomBytes(24).toString('base64url');

export const RESTATE_SERVER = resolve('node_modules/@restatedev/restate-server-linux-x64/bin/restate-server');

export interface RestateNodeOptions {
  readonly name?: string;
  readonly cluster?: string;
  /** Every node's fabric address (`http://127.0.0.1:<port>`), this one's included; alone when absent. */
  readonly metadata?: readonly string[];
  readonly autoProvision?: boolean;
  readonly replication?: number;
  /** The ports to use (a cluster picks them all first, to give every node the others' addresses). */
  readonly ports?: RestatePorts;
  readonly baseDir?: string;
}

export interface RestatePorts {
  readonly fabric: number;
  readonly ingress: number;
  readonly admin: number;
}

export interface RestateNode {
  readonly name: string;
  readonly ingress: string;
  readonly admin: string;
  readonly fabric: string;
  /** The token the test's endpoints, workers and clients use (`RESTATE_TEST_TOKEN`). */
  readonly token: string;
  readonly baseDir: string;
  readonly pid: number | undefined;
  readonly log: string;
  /** SIGKILL, and the exit awaited. */
  kill(): Promise<void>;
  /** Starts the server again on the same ports and base dir, and waits until it is healthy. */
  restart(): Promise<void>;
  /** Kills the server and removes its base dir (unless the caller gave one). */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export async function freePorts(): Promise<RestatePorts> {
  return { fabric: await freePort(), ingress: await freePort(), admin: await freePort() };
}

export async function startRestateNode(options: RestateNodeOptions = {}): Promise<RestateNode> {
  if (!existsSync(RESTATE_SERVER))
    throw new Error(
      `no Restate server binary at ${RESTATE_SERVER}: run npm ci (it comes with @restatedev/restate-server)`,
    );
  const name = options.name ?? 'n1';
  const ports = options.ports ?? (await freePorts());
  const ownDir = options.baseDir === undefined;
  const baseDir = options.baseDir ?? mkdtempSync(join(tmpdir(), 'statewright-restate-'));
  const fabric = `http://127.0.0.1:${ports.fabric}`;
  const config = [
    `node-name = "${name}"`,
    `cluster-name = "${options.cluster ?? 'statewright-test'}"`,
    `base-dir = "${baseDir}"`,
    `auto-provision = ${options.autoProvision ?? true}`,
    `default-num-partitions = 4`,
    `default-replication = ${options.replication ?? 1}`,
    `rocksdb-total-memory-size = "512 MiB"`,
    `disable-telemetry = true`,
    `log-format = "compact"`,
    `log-disable-ansi-codes = true`,
    `listen-mode = "tcp"`,
    `bind-address = "127.0.0.1:${ports.fabric}"`,
    `advertised-address = "${fabric}/"`,
    ...(options.metadata
      ? ['[metadata-client]', `addresses = [${options.metadata.map((a) => `"${a}/"`).join(', ')}]`]
      : []),
    '[bifrost]',
    `default-provider = "replicated"`,
    '[admin]',
    `bind-address = "127.0.0.1:${ports.admin}"`,
    'disable-web-ui = true',
    '[admin.query-engine]',
    'memory-size = "64 MiB"',
    '[ingress]',
    `bind-address = "127.0.0.1:${ports.ingress}"`,
    '',
  ].join('\n');
  mkdirSync(baseDir, { recursive: true });
  const configPath = join(baseDir, `${name}.toml`);
  writeFileSync(configPath, config);
  const log = join(baseDir, `${name}.log`);
  let child: ChildProcess | undefined;

  const launch = async () => {
    const out = openSync(log, 'a');
    child = spawn(RESTATE_SERVER, ['--config-file', configPath, '--no-logo'], {
      stdio: ['ignore', out, out],
      env: { ...process.env, RESTATE_CONFIG: undefined, DO_NOT_TRACK: '1' },
    });
    closeSync(out);
    const started = child;
    // A test process that ends without its afterAll (an uncaught error, a runner stopping) takes its servers with it.
    const onExit = () => started.kill('SIGKILL');
    process.once('exit', onExit);
    started.once('exit', () => process.off('exit', onExit));
    const exited = new Promise<never>((_, fail) =>
      started.once('exit', (code, signal) =>
        fail(new Error(`restate-server ${name} exited (${code ?? signal}); see ${log}`)),
      ),
    );
    exited.catch(() => {});
    await Promise.race([
      exited,
      until(
        `Restate node ${name} to serve its admin API and ingress`,
        async () =>
          (await healthy(`http://127.0.0.1:${ports.admin}/health`)) &&
          (await healthy(`http://127.0.0.1:${ports.ingress}/restate/health`)),
        60_000,
        100,
      ),
    ]);
  };

  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const gone = new Promise((done) => running.once('exit', done));
    running.kill('SIGKILL');
    await gone;
  };

  const node: RestateNode = {
    name,
    ingress: `http://127.0.0.1:${ports.ingress}`,
    admin: `http://127.0.0.1:${ports.admin}`,
    fabric,
    token: RESTATE_TEST_TOKEN,
    baseDir,
    log,
    get pid() {
      return child?.pid;
    },
    kill,
    restart: launch,
    stop: async () => {
      await kill();
      if (ownDir) rmSync(baseDir, { recursive: true, force: true });
    },
  };
  try {
    await launch();
  } catch (error) {
    await node.stop();
    throw error;
  }
  return node;
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}
