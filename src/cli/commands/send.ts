import { Command } from 'commander';
import type { Cli } from '../command.js';
import {
  engineOption,
  restateAdminOption,
  restateEngine,
  restateTokenOption,
  type EngineValues,
} from '../restate-engine.js';
import { EVENT_EXAMPLE, readEvent } from '../event-input.js';
import { createOption, storeOpener, storeOption } from '../open-store.js';
import { runJson } from '../../serve/run-json.js';
import { callHolder, runPath, type RunJson } from '../../client/server-client.js';
import { findServer, serverOption, tokenOption } from '../find-server.js';
import { machineOfRun, withRuntimeFor } from '../with-runtime.js';
import { agreeOnConfig } from '../config-agreement.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';

interface SendOptions extends EngineValues {
  readonly eventFile?: string;
  readonly store?: string;
  readonly create?: boolean;
  readonly actor?: string;
  readonly reason?: string;
  readonly key?: string;
  readonly server?: string;
  readonly token?: string;
  readonly json?: boolean;
}

export const sendCommand = (cli: Cli) =>
  new Command('send')
    .summary('apply one event to a run and wait for its commit (through the running serve when there is one)')
    .argument('<run>', 'the run id')
    .argument('[event]', `the event as JSON, e.g. ${EVENT_EXAMPLE}, or - to read it from stdin`)
    .option(
      '--event-file <path>',
      'read the event from this file instead (- for stdin): a shell argument carries at most about 128 KB',
    )
    .option('--actor <name>', 'who sends it, kept in the audit trail')
    .option('--reason <text>', 'why, kept in the audit trail')
    .option('--key <key>', 'an idempotency key: the event is applied once however often it is sent with this key')
    .option('--json', 'print {"run": {...}} as POST /api/runs/<run>/events answers it')
    .addOption(storeOption())
    .addOption(createOption())
    .addOption(serverOption())
    .addOption(tokenOption())
    .addOption(engineOption())
    .addOption(restateAdminOption())
    .addOption(restateTokenOption())
    .action(
      cli.exitsWith(async (runId: string, json: string | undefined, values: SendOptions) => {
        const event = await readEvent({ argument: json, file: values.eventFile }, cli.io.stdin);
        const options = {
          ...(values.actor && { actor: values.actor }),
          ...(values.reason && { reason: values.reason }),
          ...(values.key && { idempotencyKey: values.key }),
        };
        const restate = await restateEngine(values);
        if (restate) {
          const run = await restate.dispatch(runId, event as never, options);
          process.stdout.write(
            values.json
              ? `${JSON.stringify({ run: runJson(run) })}\n`
              : `${runId}: ${run.state} (${run.status}, ${run.seq} events, on Restate)\n`,
          );
          return 0;
        }
        const server = findServer(values);
        if (server) {
          await agreeOnConfig(server, cli.configFile(), (line) => cli.io.writeErr(`${line}\n`));
          const { run, server: host } = await callHolder<{ run: RunJson }>(server, 'POST', `${runPath(runId)}/events`, {
            event,
            ...options,
          });
          process.stdout.write(
            values.json
              ? `${JSON.stringify({ run })}\n`
              : `${runId}: ${run.state} (${run.status}, ${run.seq} events, on ${host.url})\n`,
          );
          return 0;
        }
        refuseMemoryStore(
          values.store,
          'send',
          'its store would hold no run of another process, and what it changed would be gone as it exits',
        );
        // Loaded here: reading a machine's needs loads XState and the statechart model, which a send through a serve never needs.
        const { needsHost, NoServerError } = await import('../needs-host.js');
        // Only the run's lifecycle is loaded: the store is asked which it is first.
        const snapshot = await withRuntimeFor(
          storeOpener(values),
          machineOfRun(runId),
          cli.registry,
          async (rt, machines) => {
            const { machine } = await rt.getSnapshot(runId);
            const why = needsHost(machine, machines);
            if (why) throw new NoServerError(machine, values.store, why);
            // Let go before exiting, refused or not: this process hosts nothing, and a run it left held would look like a crashed host's.
            try {
              await rt.dispatch(runId, event as never, options);
            } finally {
              await rt.unload(runId);
            }
            // As the store holds it now this process let go of it.
            return rt.getSnapshot(runId);
          },
        );
        process.stdout.write(
          values.json
            ? `${JSON.stringify({ run: runJson(snapshot) })}\n`
            : `${runId}: ${snapshot.state} (${snapshot.status}, ${snapshot.seq} events)\n`,
        );
        return 0;
      }),
    );
