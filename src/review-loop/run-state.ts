/**
 * The seed's run-state mapping: loop states as a run's stored state (the manifest's `state`).
 * `cancelled` is a run state agentpair defines but a loop never produces; it reads back as failed.
 */
import { reviewLoop, type ReviewLoopState } from '../../machines/review-loop/index.js';
import { StatewrightError } from '../errors.js';

export const RUN_STATES = ['submitted', 'working', 'reviewing', 'completed', 'failed', 'cancelled'] as const;
export type RunState = (typeof RUN_STATES)[number];

const TO_RUN_STATE: Record<ReviewLoopState, RunState> = {
  init: 'submitted',
  working: 'working',
  reviewing: 'reviewing',
  complete: 'completed',
  failed: 'failed',
};

const FROM_RUN_STATE: Record<RunState, ReviewLoopState> = {
  submitted: 'init',
  working: 'working',
  reviewing: 'reviewing',
  completed: 'complete',
  failed: 'failed',
  cancelled: 'failed',
};

/** A state that is not in the mapping: a damaged manifest or a newer format, never guessed. */
export class UnknownStateError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'UnknownStateError';
}

export function toRunState(state: ReviewLoopState): RunState {
  if (!Object.hasOwn(TO_RUN_STATE, state)) {
    throw new UnknownStateError(
      `'${state}' is not a review loop state; expected one of ${reviewLoop.states.join(', ')}`,
    );
  }
  return TO_RUN_STATE[state];
}

/**
 * The seed maps anything it does not know to failed and agentpair to init; both guess. An unknown
 * run state is refused with the value named, so a damaged manifest is noticed rather than resumed.
 */
export function fromRunState(state: RunState): ReviewLoopState {
  if (!Object.hasOwn(FROM_RUN_STATE, state)) {
    throw new UnknownStateError(`'${state}' is not a run state; expected one of ${RUN_STATES.join(', ')}`);
  }
  return FROM_RUN_STATE[state];
}

/** completed, failed and cancelled: nothing more will happen to the run. */
export function isTerminalRunState(state: RunState): boolean {
  return state === 'completed' || state === 'failed' || state === 'cancelled';
}
