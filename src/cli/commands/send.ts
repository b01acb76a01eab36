import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { STORE_HELP } from '../open-store.js';
import { UsageError } from '../usage-error.js';
import { withRuntime } from '../with-runtime.js';

export const sendCommand: Command = {
  summary: `apply one event and wait for its commit: <run> <event-json> [--actor, --reason, --key, ${STORE_HELP}]`,
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { store: { type: 'string' }, actor: { type: 'string' }, reason: { type: 'string' }, key: { type: 'string' } },
    });
    const [runId, json] = positionals;
    if (!runId || !json) throw new UsageError(`send needs a run id and an event: statewright send <run> '{"type":"START"}'`);
    let event: unknown;
    try {
      event = JSON.parse(json);
    } catch (error) {
      throw new UsageError(`The event is not valid JSON (${(error as Error).message}): ${json}. Example: '{"type":"START"}'`);
    }
    const snapshot = await withRuntime(values.store, (rt) =>
      rt.dispatch(runId, event as never, {
        ...(values.actor && { actor: values.actor }),
        ...(values.reason && { reason: values.reason }),
        ...(values.key && { idempotencyKey: values.key }),
      }),
    );
    process.stdout.write(`${runId}: ${snapshot.state} (${snapshot.status}, ${snapshot.seq} events)\n`);
    return 0;
  },
};
