/**
 * Waiting for the chaos tests' runs to have done all they will do (`settled`, chaos-workload.ts),
 * read from the store; a wait that times out shows each run that has not, with its history.
 */
import type { Store } from '../../src/stores/store.js';
import { settled, type PlannedRun } from './chaos-workload.js';
import { until } from './until.js';

export async function untilSettled(store: Store, plans: readonly PlannedRun[], timeoutMs = 90_000): Promise<void> {
  const unsettled = async () => {
    const left: PlannedRun[] = [];
    for (const plan of plans)
      if (!settled(plan, await store.load(plan.runId), await store.history(plan.runId))) left.push(plan);
    return left;
  };
  await until('every run to settle', async () => (await unsettled()).length === 0, timeoutMs, 200).catch(
    async (error: Error) => {
      throw new Error(`${error.message}: ${await describeRuns(store, await unsettled())}`);
    },
  );
}

/** The runs as the store has them, with their histories: what a timed-out wait shows. */
export async function describeRuns(store: Store, plans: readonly PlannedRun[]): Promise<string> {
  const lines = [];
  for (const plan of plans) {
    const run = await store.load(plan.runId);
    const history = await store.history(plan.runId);
    lines.push(
      `${plan.runId}: ${run?.status} ${run?.state}, lease ${JSON.stringify(run?.lease)}, wakeAt ${run?.wakeAt}, history ${history.map((e) => `${e.event.type}(${e.actor ?? ''})`).join(' ')}`,
    );
  }
  return lines.join('\n');
}
