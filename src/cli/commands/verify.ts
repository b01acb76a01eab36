import { Command } from 'commander';
import { runIdProblem } from '../../runtime/call-arguments.js';
import { UnknownRunError, verifyRun } from '../../runtime/index.js';
import type { Cli } from '../command.js';
import { StoreCorruptionError } from '../../stores/index.js';
import { openStore, storeOption } from '../open-store.js';
import { shownRunId } from '../shown-run-id.js';

export const verifyCommand = (cli: Cli) =>
  new Command('verify')
    .summary("replay every run's log through its machine and compare with its stored snapshot")
    .argument('[runs...]', 'the runs to verify (default all)')
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (runIds: string[], values: { readonly store?: string }) => {
        const { machines } = await cli.registry();
        const store = await openStore(values.store, { readOnly: true, create: false });
        try {
          for (const runId of runIds) if (!(await store.load(runId))) throw new UnknownRunError(runId);
          const ids = runIds.length ? runIds : (await store.list()).map((r) => r.runId);
          let bad = 0;
          let malformed = 0;
          for (const runId of ids) {
            const shown = shownRunId(runId);
            // Stored before ids were checked, or written past the runtime: named, and replayed like any other.
            const idProblem = runIdProblem(runId);
            if (idProblem !== undefined) {
              malformed++;
              process.stdout.write(
                `${shown}: its run id is malformed (${idProblem}), so a runtime sets the run aside and no call can name it\n`,
              );
            }
            let report: Awaited<ReturnType<typeof verifyRun>>;
            try {
              report = await verifyRun(store, machines, runId);
            } catch (error) {
              // A run whose stored data fails its checksum is reported like any other mismatch, and the rest are verified.
              if (!(error instanceof StoreCorruptionError)) throw error;
              bad++;
              process.stdout.write(`${shown}: ${error.message}\n`);
              continue;
            }
            if (report.ok) continue;
            bad++;
            process.stdout.write(
              `${shown} (${report.machine ?? 'unknown machine'}): ${report.mismatches.length} problem(s)\n`,
            );
            for (const m of report.mismatches)
              process.stdout.write(`  ${m.seq !== undefined ? `seq ${m.seq}: ` : ''}${m.message}\n`);
          }
          process.stdout.write(`${ids.length - bad} of ${ids.length} runs replay to their stored snapshot.\n`);
          if (malformed)
            process.stdout.write(
              `${malformed} run(s) have a malformed id: written before run ids were checked, they take no events.\n`,
            );
          // What no single run's read shows: a damaged index can hide a run or an idempotency key.
          const problems = (await store.checkIntegrity?.()) ?? [];
          for (const problem of problems) process.stdout.write(`store: ${problem}\n`);
          if (problems.length)
            process.stdout.write(
              "The store file is damaged: restore it from a backup (SQLite's REINDEX repairs a damaged index).\n",
            );
          return bad || malformed || problems.length ? 1 : 0;
        } finally {
          await store.close();
        }
      }),
    );
