import { Command } from 'commander';
import { runIdProblem } from '../../runtime/call-arguments.js';
import { UnknownRunError, verifyRun } from '../../runtime/index.js';
import type { Cli } from '../command.js';
import { StoreCorruptionError } from '../../stores/index.js';
import { openStore, storeOption } from '../open-store.js';
import { shownRunId } from '../shown-run-id.js';
import { refuseMemoryStore } from '../memory-store-refusal.js';

/** A run as `verify --json` reports it. */
interface VerifiedRunJson {
  readonly runId: string;
  readonly machine: string | null;
  /** It replays to its stored snapshot, and its id is well-formed. */
  readonly ok: boolean;
  /** How its log and its snapshot disagree (kind 'corrupt': its stored data fails its checksum). */
  readonly mismatches: ReadonlyArray<{ readonly seq?: number; readonly kind: string; readonly message: string }>;
  /** Present when its id is malformed (stored before ids were checked): what is wrong with it. */
  readonly malformedId?: string;
}

export const verifyCommand = (cli: Cli) =>
  new Command('verify')
    .summary("replay every run's log through its machine and compare with its stored snapshot")
    .argument('[runs...]', 'the runs to verify (default all)')
    .option(
      '--json',
      'print {"ok", "runs": [{runId, machine, ok, mismatches: [{seq, kind, message}], malformedId?}], "store": [problems]}, every run verified',
    )
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (runIds: string[], values: { readonly store?: string; readonly json?: boolean }) => {
        refuseMemoryStore(
          values.store,
          'verify',
          'it would read an empty store of its own, not the runs another process holds',
        );
        const { machines } = await cli.registry();
        const store = await openStore(values.store, { readOnly: true, create: false });
        try {
          for (const runId of runIds) if (!(await store.load(runId))) throw new UnknownRunError(runId);
          const ids = runIds.length ? runIds : (await store.list()).map((r) => r.runId);
          let bad = 0;
          let malformed = 0;
          // What --json prints, and the text as it goes.
          const runs: VerifiedRunJson[] = [];
          const print = (text: string) => values.json || process.stdout.write(text);
          for (const runId of ids) {
            const shown = shownRunId(runId);
            // Stored before ids were checked, or written past the runtime: named, and replayed like any other.
            const idProblem = runIdProblem(runId);
            if (idProblem !== undefined) {
              malformed++;
              print(
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
              print(`${shown}: ${error.message}\n`);
              runs.push({
                runId,
                machine: null,
                ok: false,
                mismatches: [{ kind: 'corrupt', message: error.message }],
                ...(idProblem !== undefined && { malformedId: idProblem }),
              });
              continue;
            }
            runs.push({
              runId,
              machine: report.machine ?? null,
              ok: report.ok && idProblem === undefined,
              mismatches: report.mismatches,
              ...(idProblem !== undefined && { malformedId: idProblem }),
            });
            if (report.ok) continue;
            bad++;
            print(`${shown} (${report.machine ?? 'unknown machine'}): ${report.mismatches.length} problem(s)\n`);
            for (const m of report.mismatches) print(`  ${m.seq !== undefined ? `seq ${m.seq}: ` : ''}${m.message}\n`);
          }
          print(`${ids.length - bad} of ${ids.length} runs replay to their stored snapshot.\n`);
          if (malformed)
            print(
              `${malformed} run(s) have a malformed id: written before run ids were checked, they take no events.\n`,
            );
          // What no single run's read shows: a damaged index can hide a run or an idempotency key.
          const problems = (await store.checkIntegrity?.()) ?? [];
          for (const problem of problems) print(`store: ${problem}\n`);
          if (problems.length)
            print("The store file is damaged: restore it from a backup (SQLite's REINDEX repairs a damaged index).\n");
          const ok = !bad && !malformed && !problems.length;
          if (values.json) process.stdout.write(`${JSON.stringify({ ok, runs, store: problems })}\n`);
          return ok ? 0 : 1;
        } finally {
          await store.close();
        }
      }),
    );
