/**
 * The task lifecycle's recovery rule, called by the runtime for a run it restores because the
 * process that last committed to it is gone. Pure: the run and the owner's fate arrive as data.
 *
 * Only a check in progress needs a decision: its commands died with that process, so no result
 * will ever come. The task leaves Checking with the reason (an interrupted check spends no retry)
 * and the executor checks again. Everything else waits for an agent as it was: a lease the dead
 * process held runs out at its recorded instant (the restored lease timer), a consultation or a
 * question keeps waiting for its answer.
 */
import type { RecoveringRun } from '../lifecycle.js';
import type { TaskEvent } from './events.js';

const CHECKING = ['Active', 'Working', 'Checking', 'Running'];

function inRunningCheck(value: unknown, path = CHECKING): boolean {
  if (path.length === 1) return value === path[0];
  return (
    typeof value === 'object' &&
    value !== null &&
    inRunningCheck((value as Record<string, unknown>)[path[0]!], path.slice(1))
  );
}

export function recoverTask(run: RecoveringRun): Array<TaskEvent & { [key: string]: unknown }> {
  if (run.previousOwner?.alive !== false || !inRunningCheck(run.snapshot.value)) return [];
  const { pid, host } = run.previousOwner;
  return [
    {
      type: 'check_failed',
      agent: 'checker:statewright:1',
      failed: ['(check interrupted)'],
      feedback: `the process running the check (pid ${pid} on ${host}) is gone, so the check never finished. Run the check again.`,
      interrupted: true,
    },
  ];
}
