import { Command, Option } from 'commander';
import { RUN_STATUSES } from '../../runtime/call-arguments.js';
import type { Cli } from '../command.js';
import { openStore, storeOption } from '../open-store.js';
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
        // A read command: it never changes the store (damage is reported, and `statewright repair` repairs it).
        const runs = await withRuntime(() => openStore(values.store, { readOnly: true }), (rt) =>
          rt.list({ ...(values.machine && { machine: values.machine }), ...(values.status && { status: values.status }) }),
        );
        if (runs.length === 0) {
          process.stdout.write('no runs\n');
          return 0;
        }
        const rows = runs.map((r) => [r.runId, r.machine, r.state, r.status, String(r.seq), new Date(r.updatedAt).toISOString()]);
        const header = ['RUN', 'MACHINE', 'STATE', 'STATUS', 'EVENTS', 'UPDATED'];
        const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
        for (const row of [header, ...rows]) process.stdout.write(row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd() + '\n');
        return 0;
      }),
    );
