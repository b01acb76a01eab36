import { resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_INSPECT_PORT, DEFAULT_PORT, isLoopback, startServe } from '../../serve/serve.js';
import { TokenRequiredError } from '../../serve/serve-errors.js';
import { checkToken } from '../../serve/serve-token.js';
import { DEFAULT_UI_DIR } from '../../serve/ui-files.js';
import { reloadLine } from '../../serve/config-reload.js';
import type { Cli } from '../command.js';
import { restateViewRuntime } from '../../restate/index.js';
import {
  engineOption,
  restateAdminOption,
  restateEngine,
  restateTokenOption,
  type EngineValues,
} from '../restate-engine.js';
import { statewrightBin } from '../package-version.js';
import { hibernateAfterOption, hostIdOption, leaseTtlOption } from '../host-options.js';
import { createOption, storeFiles, storeOpener, storeOption } from '../open-store.js';
import { inspectorBanner } from '../../inspect/bridge-page.js';
import { wholeNumber } from '../whole-number.js';

interface ServeValues extends EngineValues {
  readonly store?: string;
  readonly create?: boolean;
  readonly port: number;
  readonly host: string;
  /** false with --no-token. */
  readonly token?: string | false;
  readonly allowedHost: string[];
  readonly corsOrigin: string[];
  readonly inspect?: boolean;
  readonly inspectPort: number;
  readonly taskDir: string;
  readonly hostId?: string;
  readonly leaseTtl: number;
  readonly hibernateAfter: number | false;
}

export const serveCommand = (cli: Cli) =>
  new Command('serve')
    .summary('host every lifecycle with its agents and timers, with the HTTP API and the live view, until stopped')
    .option('--port <n>', 'the port of the API and the live view (0: any free one)', wholeNumber(0), DEFAULT_PORT)
    .option('--host <addr>', 'the address to bind (0.0.0.0: every interface)', '127.0.0.1')
    .option(
      '--token <secret>',
      'the token every request must show, 16 characters or more (default $STATEWRIGHT_TOKEN, else a random one)',
    )
    .option(
      '--no-token',
      'serve loopback without a token: any local user and program can then drive it (the Origin and Host checks stay)',
    )
    .option(
      '--allowed-host <name>',
      'another name of this machine the Host header may give (repeatable; localhost and IP addresses need none)',
      collect,
      [],
    )
    .option(
      '--cors-origin <origin>',
      'let web pages of this origin call the API, e.g. http://localhost:5173 (repeatable)',
      collect,
      [],
    )
    .option('--inspect', 'also serve the Stately inspector bridge, for as long as serve runs')
    .option('--inspect-port <n>', 'the port of the inspector bridge', wholeNumber(0), DEFAULT_INSPECT_PORT)
    .option('--task-dir <dir>', 'the ferrus project whose task this server runs (its ferrus.toml and STATE.json)', '.')
    .addOption(hostIdOption())
    .addOption(leaseTtlOption())
    .addOption(hibernateAfterOption())
    .addOption(storeOption())
    .addOption(createOption())
    .addOption(engineOption())
    .addOption(restateAdminOption())
    .addOption(restateTokenOption())
    .action(
      cli.exitsWith(async (values: ServeValues) => {
        const token = values.token === false ? false : (values.token ?? envToken());
        // Taken, and gone from this process's environment: no agent, check or hook serve starts inherits it
        // (a session's agent gets its own credential in its place, src/serve/scoped-credential.ts).
        delete process.env.STATEWRIGHT_TOKEN;
        // Refused before the store is opened: nothing is recovered for a server that will not run.
        if (!isLoopback(values.host) && token === false) throw new TokenRequiredError(values.host);
        if (typeof token === 'string') checkToken(token);
        const registry = await cli.registry();
        const { machines, actors, file, fromConfig, source } = registry;
        // --engine restate: the runs live on Restate, hosted by statewright worker: served, not hosted, here.
        const restate = await restateEngine(values);
        const engine = restate && restateViewRuntime(restate, machines);
        const store = engine ? engine.store : await storeOpener(values)();
        const files = engine ? { home: storeFiles(undefined).home } : storeFiles(values.store);
        let server;
        try {
          server = await startServe({
            store,
            machines,
            actors,
            home: files.home,
            taskDir: resolve(values.taskDir),
            host: values.host,
            port: values.port,
            ...(values.hostId !== undefined && { hostId: values.hostId }),
            leaseTtlMs: values.leaseTtl,
            hibernateAfterMs: values.hibernateAfter,
            ...(token !== undefined && { token }),
            allowedHosts: values.allowedHost,
            corsOrigins: values.corsOrigin,
            ...(values.inspect && { inspectPort: values.inspectPort }),
            ...(files.serverDir && { serverDir: files.serverDir, handOverFile: files.handOverFile! }),
            ...(engine && { engine }),
            // Watched and loaded again when it changes (not for runs on Restate: the worker hosts those).
            ...(source && !engine && { config: { ...registry, source } }),
            // A change loaded on stdout, with the banner; one refused on stderr, as an error.
            onConfigReload: (outcome) =>
              outcome.kind === 'refused'
                ? cli.io.writeErr(`serve: error: ${reloadLine(outcome)}\n`)
                : process.stdout.write(`${reloadLine(outcome)}\n`),
            uiDir: DEFAULT_UI_DIR,
            // Each session's permission prompt tool: this very statewright, pointed at this server.
            mcpCommand: { command: process.execPath, args: [statewrightBin(), 'mcp'] },
            onError: ({ runId, event, error }) =>
              cli.io.writeErr(`${runId}: ${event.type} refused: ${error.message}\n`),
            onLog: ({ runId, level, message }) =>
              level !== 'debug' && level !== 'info' && cli.io.writeErr(`${runId || 'serve'}: ${level}: ${message}\n`),
          });
        } catch (error) {
          await store.close();
          throw error;
        }
        // Listened for before the banner says how to stop: a signal sent on seeing it must not find the default (exit at once).
        const signal = new Promise<NodeJS.Signals>((done) => {
          process.once('SIGINT', () => done('SIGINT'));
          process.once('SIGTERM', () => done('SIGTERM'));
        });
        const adopted = server.lifecycles.adopted;
        process.stdout.write(
          `statewright serve: ${server.url} (the API under ${server.url}/api)${listeningOn(values.host)}\n`,
        );
        process.stdout.write(`The live view: ${server.viewUrl}\n`);
        // In the banner, on stdout, where the user reads the URL: a warning on stderr could be missed.
        if (!server.token)
          process.stdout.write(
            'warning: serving without a token (--no-token): any program or user on this machine can start processes through this server\n',
          );
        if (server.inspectorUrl) process.stdout.write(`${inspectorBanner(server.inspectorUrl)}\n`);
        process.stdout.write(`host ${server.hostId}: ${hostingLine(server.leaseTtlMs, values.hibernateAfter)}\n`);
        process.stdout.write(`lifecycles: ${lifecyclesLine(Object.keys(machines), file, fromConfig)}\n`);
        if (server.config)
          process.stdout.write(
            `config ${file} (hash ${server.config.status().hash}): watched; a change is loaded when saved, or serve says why not\n`,
          );
        process.stdout.write(
          `${server.lifecycles.runtime.restoredAtStart.length} runs restored${adopted ? `, ${adopted} handed over by the last serve` : ''}; stop with Ctrl-C (agents keep running for the next serve)\n`,
        );
        process.stdout.write(`${await signal}: applying what is queued and handing the runs over\n`);
        try {
          await server.close({ handOver: true });
        } finally {
          await store.close();
        }
        process.stdout.write('stopped\n');
        // Agent processes this server spawned are handed over, not awaited.
        setImmediate(() => process.exit(0));
        return 0;
      }),
    );

const collect = (value: string, previous: string[]) => [...previous, value];

/** What it hosts, and which of those the config gave (a built-in's name among them: edited). */
function lifecyclesLine(names: readonly string[], file: string | undefined, fromConfig: readonly string[]): string {
  return file === undefined
    ? `${names.join(', ')} (the built-in ones; yours go in statewright.config.ts: statewright init)`
    : `${names.join(', ')} (${fromConfig.join(', ')} from ${file})`;
}

/** STATEWRIGHT_TOKEN when set (empty is unset); a blank one is refused by checkToken, not taken as none. */
const envToken = () => process.env.STATEWRIGHT_TOKEN || undefined;

/** Where serve listens, when that is more than the URL shows (every interface). */
function listeningOn(host: string): string {
  return host === '0.0.0.0' || host === '::'
    ? `; listening on every interface (${host}), so from other machines too`
    : '';
}

/** What the banner says of how this host holds its runs. */
function hostingLine(leaseTtlMs: number | undefined, hibernateAfter: number | false): string {
  if (leaseTtlMs === undefined) return 'this store has no leases: this host alone keeps every active run in memory';
  const sleep =
    hibernateAfter === false
      ? 'every hosted run stays in memory'
      : `runs idle ${hibernateAfter} ms leave memory until their next event or deadline`;
  return `lease ttl ${leaseTtlMs} ms (another host takes its runs over this long after it stops renewing); ${sleep}`;
}
