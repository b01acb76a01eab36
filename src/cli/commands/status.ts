import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { STORE_HELP } from '../open-store.js';
import { withRuntime } from '../with-runtime.js';

export const statusCommand: Command = {
  summary: `list runs: id, machine, state, status, events applied (--machine, --status, ${STORE_HELP})`,
  async run(args) {
    const { values } = parseArgs({ args, options: { store: { type: 'string' }, machine: { type: 'string' }, status: { type: 'string' } } });
    const runs = await withRuntime(values.store, (rt) =>
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
  },
};
