/**
 * `statewright worker`: hosts the lifecycles on Restate (src/restate/worker.ts) until stopped:
 * serves the run objects and performs the runs' actors, registered with the admin API it is given;
 * SIGINT or SIGTERM hands the agents over to the next worker.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { Cli } from '../command.js';
import { startWorker, workerActors, workerStartInputs } from '../../restate/index.js';
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
    .action(
      cli.exitsWith(async (values: WorkerValues) => {
        const admin = checkedUrl(values.restateAdmin, '--restate-admin');
        const ingress = (values.restateIngress ?? `${admin.protocol}//${admin.hostname}:8080`)
          .split(',')
          .map((url) => checkedUrl(url.trim(), '--restate-ingress').href.replace(/\/$/, ''));
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
          onLog: ({ runId, level, message }) =>
            level !== 'debug' && level !== 'info' && cli.io.writeErr(`${runId || 'worker'}: ${level}: ${message}\n`),
        });
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
