import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { STORE_HELP } from '../open-store.js';
import { UsageError } from '../usage-error.js';
import { withRuntime } from '../with-runtime.js';

export const startCommand: Command = {
  summary: `start a run of a lifecycle: <machine> [--id, --input <json>, ${STORE_HELP}]`,
  async run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { store: { type: 'string' }, id: { type: 'string' }, input: { type: 'string' } } });
    const [machine] = positionals;
    if (!machine) throw new UsageError('start needs a machine name: statewright start execution (see statewright machines)');
    let input: unknown;
    if (values.input !== undefined) {
      try {
        input = JSON.parse(values.input);
      } catch (error) {
        throw new UsageError(`--input is not valid JSON (${(error as Error).message}): ${values.input}`);
      }
    }
    const run = await withRuntime(values.store, (rt) => rt.start(machine, { ...(values.id && { id: values.id }), ...(input !== undefined && { input }) }));
    process.stdout.write(`${run.runId}: ${run.state}\n`);
    return 0;
  },
};
