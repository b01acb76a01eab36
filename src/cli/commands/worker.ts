/**
 * `statewright worker`: hosts the lifecycles on Restate (src/restate/worker.ts) until stopped:
 * serves the run objects and performs the runs' actors, registered with the admin API it is given;
 * SIGINT or SIGTERM hands the agents over to the next worker. Every call through the ingress must
 * show the worker's token (`--token`, else STATEWRIGHT_RESTATE_TOKEN); `--no-token` is only taken for
 * a Restate server on loopback.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { Cli } from '../command.js';
import { RestateTokenError, startWorker, workerActors, workerStartInputs } from '../../restate/index.js';
import { RESTATE_TOKEN_ENV, takeRestateToken } from '../restate-engine.js';
import { UsageError } from '../usage-error.js';
import { wholeNumber } from '../whole-number.js';

interface WorkerValues {
  readonly restateAdmin: string;
  readonly restateIngress?: string;
  readonly port: number;
  readonly host: string;
  readonly advertise?: string;
  readonly home: string;
  readonly taskDir: string;
  readonly identityKey: string[];
  /** false with --no-token. */
  readonly token?: string | false;
  readonly allowOrigin: string[];
}

/** The port a Restate deployment conventionally listens on. */
const DEFAULT_PORT = 9080;

export const workerCommand = (cli: Cli) =>
  new Command('worker')
    .summary(
      "host the lifecycles on Restate: serve every run object and the runs' actors (agents, checks), registered with the Restate admin API",
    )
    .requiredOption(
      '--restate-admin <url>',
      "Restate's admin API, where this worker registers (e.g. http://127.0.0.1:9070)",
    )
    .option(
      '--restate-ingress <urls>',
      "Restate's ingress the actors report through, comma-separated for a cluster (default the admin host, port 8080)",
    )
    .option('--port <n>', 'the port Restate calls this worker on (0: any free one)', wholeNumber(0), DEFAULT_PORT)
    .option('--host <addr>', 'the address to bind', '127.0.0.1')
    .option('--advertise <url>', 'the URL Restate calls this worker at, when not http://<host>:<port>')
    .option('--home <dir>', 'where agents keep their logs and pid records (sessions/, loops/)', '.statewright')
    .option('--task-dir <dir>', 'the ferrus project folder whose checks the task lifecycle runs', '.')
    .option(
      '--identity-key <key>',
      "a Restate server's request identity public key (publickeyv1_...): only requests it signed are served; repeat for several",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--token <secret>',
      `the token every call through the ingress must show, 16 characters or more (default $${RESTATE_TOKEN_ENV}); give clients the same one`,
    )
    .option(
      '--no-token',
      'no token, only for a Restate server on loopback: any local user and program can then drive the runs (the Origin check stays)',
    )
    .option(
      '--allow-origin <origin>',
      'a web page origin that may call the run objects (repeatable; a call from any other page is refused)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(
      cli.exitsWith(async (values: WorkerValues) => {
        const admin = checkedUrl(values.restateAdmin, '--restate-admin');
        const ingress = (values.restateIngress ?? `${admin.protocol}//${admin.hostname}:8080`)
          .split(',')
          .map((url) => checkedUrl(url.trim(), '--restate-ingress').href.replace(/\/$/, ''));
        // Checked before the config runs: a worker that will not start runs nothing.
        const fromEnv = takeRestateToken();
        const token = values.token === false ? false : (values.token ?? fromEnv);
        if (token === undefined)
          throw new RestateTokenError(
            `it has no token, and without one any web page or program that reaches Restate's ingress could start processes through the run objects (give --no-token only for a Restate server on loopback)`,
          );
        const { machines, actors, file } = await cli.registry();
        // Listened for before the banner says how to stop: a signal sent on seeing it must not find the default (exit at once).
        const signal = new Promise<NodeJS.Signals>((done) => {
          process.once('SIGINT', () => done('SIGINT'));
          process.once('SIGTERM', () => done('SIGTERM'));
        });
        const worker = await startWorker({
          machines,
          actors: workerActors({ machines, actors, home: resolve(values.home), taskDir: resolve(values.taskDir) }),
          startInputs: workerStartInputs({ machines, home: resolve(values.home) }),
          ingress,
          admin: admin.href,
          port: values.port,
          host: values.host,
          ...(values.advertise && { advertise: values.advertise }),
          ...(values.identityKey.length > 0 && { identityKeys: values.identityKey }),
          token,
          ...(values.allowOrigin.length > 0 && { allowedOrigins: values.allowOrigin }),
          onLog: ({ runId, level, message }) =>
            level !== 'debug' && level !== 'info' && cli.io.writeErr(`${runId || 'worker'}: ${level}: ${message}\n`),
        });
        if (token === false)
          cli.io.writeErr(
            'warning: no token (--no-token): any program or user on this machine can start processes through the run objects\n',
          );
        process.stdout.write(`statewright worker: ${worker.url}, registered with ${admin.href}\n`);
        process.stdout.write(
          `lifecycles: ${Object.keys(machines).join(', ')}${file ? ` (config ${file})` : ''}; reporting to ${ingress.join(', ')}\n`,
        );
        process.stdout.write(
          `${worker.adopted} actors taken over; stop with Ctrl-C (agents keep running for the next worker)\n`,
        );
        process.stdout.write(`${await signal}: handing the actors over\n`);
        await worker.close({ handOver: true });
        process.stdout.write('stopped\n');
        // Agent processes this worker spawned are handed over, not awaited.
        setImmediate(() => process.exit(0));
        return 0;
      }),
    );

function checkedUrl(url: string, option: string): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed;
  } catch {}
  throw new UsageError(`${option} '${url}' is not an http(s) URL, e.g. ${option} http://127.0.0.1:9070.`);
}
