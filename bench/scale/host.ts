/**
 * A fresh host process for the scale benchmark (started by scale.bench.ts, one per measurement):
 * opens a store, times `createRuntime` until it resolves, reads its RSS, sends a heartbeat to a
 * few tasks, reads its RSS again, and prints what it measured as one JSON line on stdout.
 *
 *   host.ts --store sqlite:<file> | postgres:<schema> --runs <idle runs stored> --events <count>
 *
 * With `--runs 0` (the empty store, the baseline) it starts the tasks it sends heartbeats to;
 * otherwise it sends them to random stored tasks, which are asleep and are woken by the heartbeat.
 * Before it exits it puts them back to sleep, so every host process starts on a store of sleeping runs.
 */
import { parseArgs } from 'node:util';
import { lifecycles } from '../../machines/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import type { Store } from '../../src/stores/store.js';
import { EXECUTOR, heartbeat, idleRunId, isTask } from './idle-runs.js';
import { openStore } from './stores.js';

export interface HostFigures {
  readonly readyMs: number;
  readonly rssReady: number;
  readonly rssAfterEvents: number;
  readonly heapUsedAfterEvents: number;
  readonly events: number;
}

const { values } = parseArgs({
  options: { store: { type: 'string' }, runs: { type: 'string' }, events: { type: 'string' } },
});
const runs = Number(values.runs);
const events = Number(values.events);
if (!values.store || !Number.isInteger(runs) || runs < 0 || !Number.isInteger(events) || events < 0) {
  throw new Error(
    `usage: host.ts --store sqlite:<file>|postgres:<schema> --runs <n> --events <n>; got ${process.argv.slice(2).join(' ')}`,
  );
}

const store: Store = await openStore(values.store);
const started = performance.now();
const runtime = await createRuntime({ store, machines: lifecycles });
const readyMs = performance.now() - started;
const rssReady = process.memoryUsage().rss;

const tasks = Math.ceil(runs / 2);
const touched = new Set<string>();
for (let n = 0; n < events; n++) {
  if (runs === 0) {
    const { runId } = await runtime.start('task');
    await runtime.dispatch(runId, {
      type: 'create_task',
      agent: 'supervisor:claude:1',
      task: 'Make the flaky test pass',
    });
    await runtime.dispatch(runId, { type: 'claim', agent: EXECUTOR });
    await runtime.dispatch(runId, heartbeat);
    touched.add(runId);
  } else {
    const i = 2 * Math.floor(Math.random() * tasks);
    if (!isTask(i)) throw new Error(`run ${i} is not a task`);
    await runtime.dispatch(idleRunId(i), heartbeat);
    touched.add(idleRunId(i));
  }
}
const memory = process.memoryUsage();
const figures: HostFigures = {
  readyMs,
  rssReady,
  rssAfterEvents: memory.rss,
  heapUsedAfterEvents: memory.heapUsed,
  events,
};
// Put to sleep as hibernation would, so the next host process finds every run asleep, as this one did
// (closed with them in memory, it would leave their leases run out, for the next host to take over).
await Promise.all([...touched].map((runId) => runtime.unload(runId)));
await runtime.close();
await store.close();
process.stdout.write(`${JSON.stringify(figures)}\n`);
