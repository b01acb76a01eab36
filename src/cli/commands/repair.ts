import { Command } from 'commander';
import type { CorruptionReport } from '../../stores/index.js';
import type { Cli } from '../command.js';
import { openStore, storeOption } from '../open-store.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';

/**
 * The one command that repairs a store's files. The read commands (`status`, `history`, `verify`)
 * only report damage; opening a store for writing repairs it, and this does that for every run,
 * saying what it found and what it did. (SQLite and Postgres repair nothing here: their engines
 * keep their files consistent; `verify` checks what they hold.)
 */
export const repairCommand = (cli: Cli) =>
  new Command('repair')
    .summary(
      "repair a store's damaged or half-written files (json-file): read every run, keep its newest intact state, say what was done",
    )
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (values: { readonly store?: string }) => {
        refuseMemoryStore(
          values.store,
          'repair',
          'it would read an empty store of its own, not the runs another process holds',
        );
        const found: CorruptionReport[] = [];
        const store = await openStore(values.store, { create: false, onCorruption: (report) => found.push(report) });
        try {
          const runs = await store.list();
          // Reading each run's history reports damage inside its log too (lines skipped, holes).
          for (const run of runs) await store.history(run.runId);
          for (const r of found) process.stdout.write(`${r.path}: ${r.reason}; ${r.action}\n`);
          process.stdout.write(
            found.length
              ? `${runs.length} run(s) read; ${found.length} problem(s) found, each line above says what was done.\n`
              : `${runs.length} run(s) read; nothing to repair.\n`,
          );
          return 0;
        } finally {
          await store.close();
        }
      }),
    );
