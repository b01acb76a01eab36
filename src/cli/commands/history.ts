import { Command } from 'commander';
import type { Cli } from '../command.js';
import { engineOption, restateAdminOption, restateEngine, type EngineValues } from '../restate-engine.js';
import { storeOpener, storeOption } from '../open-store.js';
import { withRuntime } from '../with-runtime.js';

interface HistoryOptions extends EngineValues {
  readonly store?: string;
  readonly json?: boolean;
}

export const historyCommand = (cli: Cli) =>
  new Command('history')
    .summary("print a run's audit trail")
    .argument('<run>', 'the run id')
    .option('--json', 'one JSON object per event')
    .addOption(storeOption())
    .addOption(engineOption())
    .addOption(restateAdminOption())
    .action(
      cli.exitsWith(async (runId: string, values: HistoryOptions) => {
        const restate = restateEngine(values);
        // A read command: it never changes the store (damage is reported, and `statewright repair` repairs it).
        const entries = restate
          ? await restate.history(runId)
          : await withRuntime(storeOpener(values, { readOnly: true }), (await cli.registry()).machines, (rt) =>
              rt.history(runId),
            );
        for (const e of entries) {
          if (values.json) {
            process.stdout.write(`${JSON.stringify(e)}\n`);
            continue;
          }
          const { type, at: _at, ...payload } = e.event;
          const who = [e.actor && `by ${e.actor}`, e.reason && `(${e.reason})`].filter(Boolean).join(' ');
          const data = Object.keys(payload).length ? ` ${shortened(JSON.stringify(payload))}` : '';
          process.stdout.write(
            `${String(e.seq).padStart(4)}  ${new Date(e.at).toISOString()}  ${e.before} --${type}--> ${e.after}${data}${who ? `  ${who}` : ''}\n`,
          );
        }
        // --json prints JSON only: no events, no lines.
        if (entries.length === 0 && !values.json) process.stdout.write('no events yet\n');
        return 0;
      }),
    );

/** How much of an event's payload a history line shows: a large event would bury every other line. */
export const HISTORY_PAYLOAD_CHARS = 500;

function shortened(payload: string): string {
  if (payload.length <= HISTORY_PAYLOAD_CHARS) return payload;
  return `${payload.slice(0, HISTORY_PAYLOAD_CHARS)}... [${Buffer.byteLength(payload)} bytes, shortened: \`history --json\` prints it whole]`;
}
