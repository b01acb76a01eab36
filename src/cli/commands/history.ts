import { Command } from 'commander';
import type { Cli } from '../command.js';
import { wordedHistoryLine } from '../history-line.js';
import {
  engineOption,
  restateAdminOption,
  restateEngine,
  restateTokenOption,
  type EngineValues,
} from '../restate-engine.js';
import { storeOpener, storeOption } from '../open-store.js';
import { machineOfRun, readStoreFor } from '../with-runtime.js';
import { checkRunId } from '../../runtime/call-arguments.js';
import { UnknownRunError } from '../../runtime/errors.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';
import { agreeOnConfig } from '../config-agreement.js';
import { findServer } from '../find-server.js';
import { historyThroughServe, type WordedEvent } from '../serve-reads.js';

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
        // Through a serve of the store that runs this config: it has the machine's words, and this process loads none.
        const server = restate ? undefined : findServer(values);
        const agreed = server && (await agreeOnConfig(server, cli.configFile(), () => {}, { reading: true }));
        const entries =
          (server && agreed && (await historyThroughServe(server, runId).catch(() => undefined))) ??
          (await historyFromStore(cli, runId, values, restate));
        for (const { record, label, actorLabel } of entries) {
          if (values.json) {
            process.stdout.write(`${JSON.stringify({ ...record, label })}\n`);
            continue;
          }
          process.stdout.write(`${wordedHistoryLine(record, label, actorLabel)}\n`);
        }
        // --json prints JSON only: no events, no lines.
        if (entries.length === 0 && !values.json) process.stdout.write('no events yet\n');
        return 0;
      }),
    );

/** The trail read from the store (or Restate) itself, in words from the registry's machine. */
async function historyFromStore(
  cli: Cli,
  runId: string,
  values: HistoryOptions,
  restate: Awaited<ReturnType<typeof restateEngine>>,
): Promise<WordedEvent[]> {
  const { actorWords, eventWords } = await import('../../graph/event-words.js');
  // A read command: it never changes the store (damage is reported, and `statewright repair` repairs it).
  // Only the run's lifecycle is loaded: the store is asked which it is first.
  const [run, entries, machines] = restate
    ? [await restate.getSnapshot(runId), await restate.history(runId), (await cli.registry()).machines]
    : await readStoreFor(
        storeOpener(values, { readOnly: true }),
        machineOfRun(runId),
        cli.registry,
        // As the runtime's `getSnapshot` and `history` read them.
        async (store, machines) => {
          const run = await store.load(checkRunId(runId));
          if (!run) throw new UnknownRunError(runId);
          return [run, await store.history(runId), machines] as const;
        },
      );
  // A run of a lifecycle the registry lacks still has its events in words, from their types alone.
  const machine = Object.hasOwn(machines, run.machine) ? machines[run.machine]!.machine : undefined;
  return entries.map((record) => ({
    record,
    label: eventWords(machine, record.event.type),
    // XState's own moves name their actor as the run knows it: an invoke by its actor's name, a delay by none.
    actorLabel: record.actor === 'xstate' ? undefined : record.actor && actorWords(machine, record.actor),
  }));
}
