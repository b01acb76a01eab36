import { Command } from 'commander';
import type { Cli } from '../command.js';
import {
  engineOption,
  restateAdminOption,
  restateEngine,
  restateTokenOption,
  type EngineValues,
} from '../restate-engine.js';
import { createOption, storeOpener, storeOption } from '../open-store.js';
import { parseJson } from '../parse-json.js';
import { runJson } from '../../serve/run-json.js';
import { callServer, type RunJson } from '../../client/server-client.js';
import { findServer, serverOption, tokenOption } from '../find-server.js';
import { UsageError } from '../usage-error.js';
import { withRuntime } from '../with-runtime.js';
import { agreeOnConfig } from '../config-agreement.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';

interface StartOptions extends EngineValues {
  readonly store?: string;
  readonly create?: boolean;
  readonly id?: string;
  readonly input?: string;
  readonly server?: string;
  readonly token?: string;
  readonly json?: boolean;
}

export const startCommand = (cli: Cli) =>
  new Command('start')
    .summary('start a run of a lifecycle (through the running serve when its agents or timers must run)')
    .argument('<machine>', 'the lifecycle: a built-in one or one of the config file (statewright machines lists them)')
    .option('--id <run>', 'the run id (default a generated one)')
    .option('--input <json>', "the run's input as JSON")
    .option('--json', 'print {"run": {...}} as POST /api/runs answers it')
    .addOption(storeOption())
    .addOption(createOption())
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(engineOption())
    .addOption(restateAdminOption())
    .addOption(restateTokenOption())
    .action(
      cli.exitsWith(async (machine: string, values: StartOptions) => {
        if (values.id === '')
          throw new UsageError("--id '' is empty: give the run an id, or leave --id out to get a generated one.");
        const input =
          values.input === undefined
            ? undefined
            : parseJson(values.input, '--input', `Example: --input '{"name":"build"}'`, values.input);
        const request = { ...(values.id !== undefined && { id: values.id }), ...(input !== undefined && { input }) };
        const restate = await restateEngine(values);
        if (restate) {
          const run = await restate.start(machine, request);
          process.stdout.write(
            values.json ? `${JSON.stringify({ run: runJson(run) })}\n` : `${run.runId}: ${run.state} (on Restate)\n`,
          );
          return 0;
        }
        const server = findServer(values);
        if (server) {
          await agreeOnConfig(server, cli.configFile(), (line) => cli.io.writeErr(`${line}\n`));
          const { run } = await callServer<{ run: RunJson }>(server, 'POST', '/api/runs', { machine, ...request });
          process.stdout.write(
            values.json ? `${JSON.stringify({ run })}\n` : `${run.runId}: ${run.state} (on ${server.url})\n`,
          );
          return 0;
        }
        refuseMemoryStore(values.store, 'start', 'the run it starts would be gone as it exits');
        // Only the lifecycle it starts (every built-in for a name none has: the refusal lists them).
        const { machines } = await cli.registry([machine]);
        // Loaded here: reading a machine's needs loads XState and the statechart model, which a start through a serve never needs.
        const { needsHost, NoServerError } = await import('../needs-host.js');
        const why = needsHost(machine, machines);
        if (why) throw new NoServerError(machine, values.store, why);
        // Let go before exiting: this process hosts nothing, and a run it left held would look like a crashed host's.
        const run = await withRuntime(storeOpener(values), machines, async (rt) => {
          const started = await rt.start(machine, request);
          await rt.unload(started.runId);
          // As the store holds it now this process let go of it.
          return rt.getSnapshot(started.runId);
        });
        process.stdout.write(
          values.json ? `${JSON.stringify({ run: runJson(run) })}\n` : `${run.runId}: ${run.state}\n`,
        );
        return 0;
      }),
    );
