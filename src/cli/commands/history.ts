import { Command } from 'commander';
import { eventWords } from '../../graph/event-words.js';
import type { Cli } from '../command.js';
import { historyLine } from '../history-line.js';
import {
  engineOption,
  restateAdminOption,
  restateEngine,
  restateTokenOption,
  type EngineValues,
} from '../restate-engine.js';
import { storeOpener, storeOption } from '../open-store.js';
import { withRuntime } from '../with-runtime.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';

interface HistoryOptions extends EngineValues {
  readonly store?: string;
  readonly json?: boolean;
}

export const historyCommand = (cli: Cli) =>
  new Command('history')
    .summary("print a run's audit trail")
    .argument('<run>', 'the run id')
    .option(
      '--json',
      "one JSON object per event: the stored event, and its `label` as the text shows it (XState's own events in words)",
    )
    .addOption(storeOption())
    .addOption(engineOption())
    .addOption(restateAdminOption())
    .addOption(restateTokenOption())
    .action(
      cli.exitsWith(async (runId: string, values: HistoryOptions) => {
        const restate = await restateEngine(values);
        if (!restate)
          refuseMemoryStore(
            values.store,
            'history',
            'it would read an empty store of its own, not the runs another process holds',
          );
        const { machines } = await cli.registry();
        // A read command: it never changes the store (damage is reported, and `statewright repair` repairs it).
        const [run, entries] = restate
          ? [await restate.getSnapshot(runId), await restate.history(runId)]
          : await withRuntime(
              storeOpener(values, { readOnly: true }),
              machines,
              async (rt) => [await rt.getSnapshot(runId), await rt.history(runId)] as const,
            );
        // A run of a lifecycle the registry lacks still has its events in words, from their types alone.
        const machine = Object.hasOwn(machines, run.machine) ? machines[run.machine]!.machine : undefined;
        for (const e of entries) {
          const label = eventWords(machine, e.event.type);
          if (values.json) {
            process.stdout.write(`${JSON.stringify({ ...e, label })}\n`);
            continue;
          }
          process.stdout.write(`${historyLine(e, machine)}\n`);
        }
        // --json prints JSON only: no events, no lines.
        if (entries.length === 0 && !values.json) process.stdout.write('no events yet\n');
        return 0;
      }),
    );
