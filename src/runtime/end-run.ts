import type { Lifecycles } from '../../machines/lifecycle.js';
import { plainRow, type Commit, type OwnerInfo, type StoredRun } from '../stores/store.js';

/** The audit trail's record of a run ended by a person (`Runtime.endSetAside`): no machine event, so a replay stops there. */
export const RUN_ENDED_EVENT = 'statewright.ended';

/**
 * The commit that ends a set-aside run: its snapshot is kept as stored (nothing acknowledged is
 * lost, and a later migration can still read it) with status `stopped`, and the log records who
 * ended it and why. Fenced by the run's seq, so a run that moved on meanwhile is not ended.
 */
export function endedRunCommit(
  run: StoredRun,
  machines: Lifecycles,
  by: { actor: string; reason: string; credential?: string; owner: OwnerInfo; now: number },
): Commit {
  const lifecycle = Object.hasOwn(machines, run.machine) ? machines[run.machine] : undefined;
  const seq = run.seq + 1;
  const stored = run.snapshot && typeof run.snapshot === 'object' ? run.snapshot : {};
  const ended: StoredRun = {
    ...plainRow(run),
    status: 'stopped',
    snapshot: { ...stored, status: 'stopped' },
    seq,
    owner: by.owner,
    updatedAt: by.now,
  };
  const keys = lifecycle?.indexes && Object.fromEntries(Object.keys(lifecycle.indexes).map((name) => [name, null]));
  return {
    run: ended,
    event: {
      runId: run.runId,
      seq,
      event: { type: RUN_ENDED_EVENT, at: by.now },
      at: by.now,
      actor: by.actor,
      reason: by.reason,
      ...(by.credential !== undefined && { credential: by.credential }),
      before: run.state,
      after: run.state,
    },
    expectedSeq: run.seq,
    ...(keys && { keys }),
  };
}
