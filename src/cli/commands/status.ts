import { Command, Option } from 'commander';
import { isProcessAlive } from '../../os/process-identity.js';
import { RUN_STATUSES } from '../../runtime/call-arguments.js';
import { runJson } from '../../serve/run-json.js';
import type { Cli } from '../command.js';
import { createOption, storeOpener, storeOption } from '../open-store.js';
import { wholeNumber } from '../whole-number.js';
import { withRuntime } from '../with-runtime.js';

interface StatusOptions {
  readonly store?: string;
  readonly create?: boolean;
  readonly machine?: string;
  readonly status?: string;
  readonly state?: string;
  readonly limit?: number;
  readonly json?: boolean;
}

export const statusCommand = (cli: Cli) =>
  new Command('status')
    .summary('list runs, newest first: id, machine, state, status, events applied, owner')
    .option('--machine <machine>', 'only the runs of this lifecycle')
    .addOption(new Option('--status <status>', 'only the runs with this status').choices(RUN_STATUSES))
    .option('--state <state>', 'only the runs resting in this state (dotted for nested states)')
    .option('--limit <n>', 'at most this many runs', wholeNumber(1))
    .option('--json', 'print {"runs": [...]} as the HTTP API lists them')
    .addOption(storeOption())
    .addOption(createOption())
    .action(
      cli.exitsWith(async (values: StatusOptions) => {
        const runs = await withRuntime(storeOpener(values), (rt) =>
          rt.list({ ...(values.machine && { machine: values.machine }), ...(values.status && { status: values.status }), ...(values.state && { state: values.state }) }),
        );
        runs.sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? -1 : 1));
        const shown = runs.slice(0, values.limit ?? runs.length);
        if (values.json) {
          process.stdout.write(JSON.stringify({ runs: shown.map(runJson) }, null, 2) + '\n');
          return 0;
        }
        if (shown.length === 0) {
          process.stdout.write('no runs\n');
          return 0;
        }
        const rows = shown.map((r) => [r.runId, r.machine, r.state, r.status, String(r.seq), new Date(r.updatedAt).toISOString(), r.owner ? `${r.owner.host}:${r.owner.pid}${isProcessAlive(r.owner) ? '' : ' (gone)'}` : '-']);
        const header = ['RUN', 'MACHINE', 'STATE', 'STATUS', 'EVENTS', 'UPDATED', 'OWNER'];
        const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
        for (const row of [header, ...rows]) process.stdout.write(row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd() + '\n');
        if (runs.length > shown.length) process.stdout.write(`(${runs.length - shown.length} more: raise --limit)\n`);
        return 0;
      }),
    );
