import { Command } from 'commander';
import type { Cli } from '../command.js';
import { storeOpener, storeOption } from '../open-store.js';
import { withRuntime } from '../with-runtime.js';

interface HistoryOptions {
  readonly store?: string;
  readonly json?: boolean;
}

export const historyCommand = (cli: Cli) =>
  new Command('history')
    .summary("print a run's audit trail")
    .argument('<run>', 'the run id')
    .option('--json', 'one JSON object per event')
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (runId: string, values: HistoryOptions) => {
        const entries = await withRuntime(storeOpener(values), (rt) => rt.history(runId));
        for (const e of entries) {
          if (values.json) {
            process.stdout.write(JSON.stringify(e) + '\n');
            continue;
          }
          const { type, at: _at, ...payload } = e.event;
          const who = [e.actor && `by ${e.actor}`, e.reason && `(${e.reason})`].filter(Boolean).join(' ');
          const data = Object.keys(payload).length ? ` ${JSON.stringify(payload)}` : '';
          process.stdout.write(`${String(e.seq).padStart(4)}  ${new Date(e.at).toISOString()}  ${e.before} --${type}--> ${e.after}${data}${who ? `  ${who}` : ''}\n`);
        }
        if (entries.length === 0) process.stdout.write('no events yet\n');
        return 0;
      }),
    );
