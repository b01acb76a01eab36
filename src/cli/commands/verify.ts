import { Command } from 'commander';
import { lifecycles } from '../../../machines/index.js';
import { UnknownRunError, verifyRun } from '../../runtime/index.js';
import type { Cli } from '../command.js';
import { openStore, storeOption } from '../open-store.js';

export const verifyCommand = (cli: Cli) =>
  new Command('verify')
    .summary("replay every run's log through its machine and compare with its stored snapshot")
    .argument('[runs...]', 'the runs to verify (default all)')
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (runIds: string[], values: { readonly store?: string }) => {
        const store = await openStore(values.store, { readOnly: true, create: false });
        try {
          for (const runId of runIds) if (!(await store.load(runId))) throw new UnknownRunError(runId);
          const ids = runIds.length ? runIds : (await store.list()).map((r) => r.runId);
          let bad = 0;
          for (const runId of ids) {
            const report = await verifyRun(store, lifecycles, runId);
            if (report.ok) continue;
            bad++;
            process.stdout.write(`${runId} (${report.machine ?? 'unknown machine'}): ${report.mismatches.length} problem(s)\n`);
            for (const m of report.mismatches) process.stdout.write(`  ${m.seq !== undefined ? `seq ${m.seq}: ` : ''}${m.message}\n`);
          }
          process.stdout.write(`${ids.length - bad} of ${ids.length} runs replay to their stored snapshot.\n`);
          return bad ? 1 : 0;
        } finally {
          await store.close();
        }
      }),
    );
