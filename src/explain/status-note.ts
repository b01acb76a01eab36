/**
 * The NOTE of `statewright status` (and of `GET /api/runs`'s `note`): what a run's lifecycle says of
 * an active run beside its state (`Lifecycle.statusNote`: an agent retrying), else, in a state its
 * `waitsFor` lists, whom it waits for ("waits for an editor"), if anything.
 */
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { RunSnapshot } from '../runtime/index.js';
import { waitsForExplanation } from './waits-for.js';

export function statusNote(
  machines: Lifecycles,
  run: Pick<RunSnapshot, 'runId' | 'machine' | 'state' | 'status' | 'value' | 'context'>,
  now: number,
): string | undefined {
  const lifecycle = run.status === 'active' && Object.hasOwn(machines, run.machine) ? machines[run.machine] : undefined;
  const said = lifecycle?.statusNote?.({
    runId: run.runId,
    state: run.state,
    snapshot: { value: run.value, context: run.context, status: run.status },
    now,
  });
  return said ?? (lifecycle?.waitsFor && waitsForExplanation(lifecycle.waitsFor, run.state).verdict);
}
