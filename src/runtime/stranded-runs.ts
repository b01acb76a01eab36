import type { Lifecycles } from '../../machines/lifecycle.js';
import type { Store } from '../stores/store.js';
import { restoreProblem, setAsideEntry, type SetAsideRun } from './set-aside.js';

/**
 * The live runs in `store` that a runtime with `machines` would set aside, each with its reason:
 * found without starting a runtime, so a changed registry can be held against a store before it
 * is deployed (`statewright check --store`), and `statewright status` can list them.
 */
export async function strandedRuns(store: Store, machines: Lifecycles, now: number = Date.now()): Promise<SetAsideRun[]> {
  const stranded: SetAsideRun[] = [];
  for (const run of await store.list({ status: 'active' })) {
    const reason = restoreProblem(run, machines, now);
    if (reason !== undefined) stranded.push(setAsideEntry(run, reason));
  }
  return stranded;
}
