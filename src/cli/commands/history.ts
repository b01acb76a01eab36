import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { STORE_HELP } from '../open-store.js';
import { UsageError } from '../usage-error.js';
import { withRuntime } from '../with-runtime.js';

export const historyCommand: Command = {
  summary: `print a run's audit trail: <run> [--json] [${STORE_HELP}]`,
  async run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { store: { type: 'string' }, json: { type: 'boolean' } } });
    const [runId] = positionals;
    if (!runId) throw new UsageError('history needs a run id: statewright history <run>');
    const entries = await withRuntime(values.store, (rt) => rt.history(runId));
    for (const e of entries) {
      if (values.json) {
        process.stdout.write(JSON.stringify(e) + '\n');
        continue;
      }
      const { type, at: _at, ...payload } = e.event;
      const who = [e.actor && `by ${e.actor}`, e.reason && `(${e.reason})`].filter(Boolean).join(' ');
      const data = Object.keys(payload).length ? ` ${JSON.stringify(payload)}` : '';
      process.stdout.write(`${String(e.seq).padStart(4)}  ${new Date(e.at).toISOString()}  ${e.before} --${type}--> ${e.after}${data}${who ? `  ${who}` : ''}\n`);
    }
    if (entries.length === 0) process.stdout.write('no events yet\n');
    return 0;
  },
};
