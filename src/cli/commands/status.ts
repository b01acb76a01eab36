import { Command, Option } from 'commander';
import { lifecycles } from '../../../machines/index.js';
import { RUN_STATUSES } from '../../runtime/call-arguments.js';
import { strandedRuns } from '../../runtime/stranded-runs.js';
import type { Cli } from '../command.js';
import { storeOption } from '../open-store.js';
import { withRuntime } from '../with-runtime.js';

interface StatusOptions {
  readonly store?: string;
  readonly machine?: string;
  readonly status?: string;
}

export const statusCommand = (cli: Cli) =>
  new Command('status')
    .summary('list runs: id, machine, state, status, events applied')
    .option('--machine <machine>', 'only the runs of this lifecycle')
    .addOption(new Option('--status <status>', 'only the runs with this status').choices(RUN_STATUSES))
    .addOption(storeOption())
    .action(
      cli.exitsWith(async (values: StatusOptions) => {
        const [runs, stranded] = await withRuntime(values.store, async (rt) => [
          await rt.list({ ...(values.machine && { machine: values.machine }), ...(values.status && { status: values.status }) }),
          // Only live runs are set aside.
          values.status && values.status !== 'active' ? [] : (await strandedRuns(rt.store, lifecycles, rt.clock.now())).filter((r) => !values.machine || r.machine === values.machine),
        ] as const);
        if (runs.length === 0) {
          process.stdout.write('no runs\n');
          return 0;
        }
        const rows = runs.map((r) => [r.runId, r.machine, r.state, r.status, String(r.seq), new Date(r.updatedAt).toISOString()]);
        printTable(['RUN', 'MACHINE', 'STATE', 'STATUS', 'EVENTS', 'UPDATED'], rows);
        if (stranded.length) {
          process.stdout.write(`\n${stranded.length} set aside: the registry cannot restore ${stranded.length === 1 ? 'it' : 'them'}. Register a migration (or fix the definition) and restart, or end one with \`statewright end <run> --reason ...\`.\n`);
          printTable(['RUN', 'MACHINE', 'STATE', 'VERSION', 'REASON'], stranded.map((r) => [r.runId, r.machine, r.state, `v${r.version}`, r.reason]));
        }
        return 0;
      }),
    );

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) process.stdout.write(row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd() + '\n');
}
