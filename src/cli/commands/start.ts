import { Command } from 'commander';
import { lifecycles } from '../../../machines/index.js';
import type { Cli } from '../command.js';
import { storeOption } from '../open-store.js';
import { parseJson } from '../parse-json.js';
import { withRuntime } from '../with-runtime.js';

interface StartOptions {
  readonly store?: string;
  readonly id?: string;
  readonly input?: string;
}

export const startCommand = (cli: Cli) =>
  new Command('start')
    .summary('start a run of a lifecycle')
    .argument('<machine>', `the lifecycle: ${Object.keys(lifecycles).join(', ')} (see statewright machines)`)
    .option('--id <run>', 'the run id (default a generated one)')
    .option('--input <json>', "the run's input as JSON")
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (machine: string, values: StartOptions) => {
        const input = values.input === undefined ? undefined : parseJson(values.input, '--input', `Example: --input '{"name":"build"}'`, values.input);
        const run = await withRuntime(values.store, (rt) => rt.start(machine, { ...(values.id && { id: values.id }), ...(input !== undefined && { input }) }));
        process.stdout.write(`${run.runId}: ${run.state}\n`);
        return 0;
      }),
    );
