/**
 * The codon's final checkpoint (the machine's `codonCheckpoint` actor). The machine has planned the
 * final transition; this commits the working tree and then sends that transition with the SHA. A
 * checkpoint that fails turns a would-be completed codon into a failed one ("Checkpoint creation
 * failed"); a failed or skipped codon ends as planned, without a checkpoint.
 */
import { fromCallback, type EventObject } from 'xstate';
import { checkpointFailed } from '../../machines/codon/final-status.js';
import type { CheckpointInput } from '../../machines/codon/actor-inputs.js';
import type { CodonStatus, PlannedTransition } from '../../machines/codon/types.js';
import type { ActorFactory, RunHandle } from '../actor-contract/run-handle.js';
import { createCheckpoint, type CheckpointType } from './git-checkpoint.js';
import { sendTransition } from './send-transition.js';

const checkpointTypes: Partial<Record<CodonStatus, CheckpointType>> = {
  completed: 'completed',
  failed: 'error',
  skipped: 'skipped',
};

export const codonCheckpoint: ActorFactory = (run) =>
  fromCallback<EventObject, CheckpointInput>(({ input }) => {
    let stopped = false;
    // The commit is made once the step that planned it is durable, and not at all if the run moved on.
    run.afterCommit(() => {
      if (!stopped) checkpoint(run, input);
    });
    return () => {
      stopped = true;
    };
  });

function checkpoint(run: RunHandle, input: CheckpointInput): void {
  const { transition, workTree, runId, codonId, attempt } = input;
  const type = checkpointTypes[transition.to];
  const key = `checkpoint:${attempt}:${transition.to}`;
  if (!type) {
    run.log('error', `no checkpoint is made for a transition to ${transition.to}; sending it as planned`);
    sendTransition(run, codonId, transition, key, 'checkpoint');
    return;
  }
  createCheckpoint({ workTree, type, runId, codonId, attempt }).then(
    (checkpoint) => {
      const done: PlannedTransition = {
        ...transition,
        metadata: { ...transition.metadata, checkpointSha: checkpoint.sha },
      };
      sendTransition(
        run,
        codonId,
        done,
        key,
        'checkpoint',
        `${type} checkpoint ${checkpoint.sha} on ${checkpoint.branch}`,
      );
    },
    (error: Error) => {
      run.log('error', `checkpoint failed: ${error.message}`, { workTree, type });
      sendTransition(
        run,
        codonId,
        checkpointFailed(transition, error.message),
        key,
        'checkpoint',
        `checkpoint failed: ${error.message}`,
      );
    },
  );
}
