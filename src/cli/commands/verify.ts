import { parseArgs } from 'node:util';
import { lifecycles } from '../../../machines/index.js';
import { UnknownRunError, verifyRun } from '../../runtime/index.js';
import type { Command } from '../command.js';
import { openStore, STORE_HELP } from '../open-store.js';

export const verifyCommand: Command = {
  summary: `replay every run's log through its machine and compare with its stored snapshot ([run...], ${STORE_HELP})`,
  async run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { store: { type: 'string' } } });
    const store = await openStore(values.store, { readOnly: true });
    try {
      for (const runId of positionals) if (!(await store.load(runId))) throw new UnknownRunError(runId);
      const ids = positionals.length ? positionals : (await store.list()).map((r) => r.runId);
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
  },
};
