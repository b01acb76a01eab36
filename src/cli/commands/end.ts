import { userInfo } from 'node:os';
import { Command } from 'commander';
import type { Cli } from '../command.js';
import { storeOption } from '../open-store.js';
import { runJson } from '../../serve/run-json.js';
import { withRuntime } from '../with-runtime.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';

interface EndOptions {
  readonly store?: string;
  readonly actor?: string;
  readonly reason: string;
  readonly json?: boolean;
}

export const endCommand = (cli: Cli) =>
  new Command('end')
    .summary('end a run that is set aside (one the registry cannot restore), recording who and why')
    .description(
      'End a run that `statewright status` lists as set aside. Its snapshot and history are kept as they are; ' +
        'its status becomes stopped and the audit trail records who ended it and why. A run the registry can restore is refused.',
    )
    .argument('<run>', 'the run id')
    .requiredOption('--reason <text>', 'why it is ended, kept in the audit trail')
    .option('--actor <name>', 'who ends it, kept in the audit trail (default: your user name)')
    .option('--json', 'print {"run": {...}}, the ended run as the HTTP API shows runs')
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (runId: string, values: EndOptions) => {
        refuseMemoryStore(
          values.store,
          'end',
          'it would read an empty store of its own, not the runs another process holds',
        );
        const actor = values.actor ?? userInfo().username;
        const snapshot = await withRuntime(values.store, (await cli.registry()).machines, (rt) =>
          rt.endSetAside(runId, { actor, reason: values.reason }),
        );
        process.stdout.write(
          values.json
            ? `${JSON.stringify({ run: runJson(snapshot) })}\n`
            : `${runId}: ended in ${snapshot.state} by ${actor} (${snapshot.status}, ${snapshot.seq} events)\n`,
        );
        return 0;
      }),
    );
