/**
 * The task as people and agents read it: the seed state it is in (the machine's hierarchy folded
 * back into the seed's nine states) and the body of STATE.json.
 */
import { z } from 'zod';
import { atomicStatePath, recordedHistories } from '../../src/graph/xstate-internals.js';
import type { TaskSnapshot } from './machine.js';

/** The states of the seed, in its catalog order plus Checking; the `state` of STATE.json. */
export const TASK_STATES = [
  'Idle',
  'Executing',
  'Checking',
  'Addressing',
  'Consultation',
  'AwaitingHuman',
  'Reviewing',
  'Complete',
  'Failed',
] as const;
export type TaskStateName = (typeof TASK_STATES)[number];

/** Where inside a seed state a task is: checks running or passed, a consultation asked or answered. */
export const TASK_STEPS = ['running', 'passed', 'asked', 'answered'] as const;
export type TaskStep = (typeof TASK_STEPS)[number];

/** The seed state a leaf of the machine belongs to ("Active.Working.Checking.Passed" is Checking). */
function seedState(path: readonly string[]): { state: TaskStateName; step?: TaskStep } {
  const index = path.findLastIndex((key) => (TASK_STATES as readonly string[]).includes(key));
  if (index < 0) throw new Error(`'${path.join('.')}' is not a state of the task machine`);
  const step = path[index + 1]?.toLowerCase() as TaskStep | undefined;
  return { state: path[index] as TaskStateName, ...(step && { step }) };
}

/** The seed state the task is in. */
export function taskState(snapshot: TaskSnapshot): TaskStateName {
  return seedState(atomicStatePath(snapshot)).state;
}

/**
 * The state a paused task returns to: for Consultation the working state it consulted from, for
 * AwaitingHuman the state it asked from. Read from the history the machine itself restores from.
 */
export function pausedState(snapshot: TaskSnapshot): TaskStateName | undefined {
  const state = taskState(snapshot);
  const history =
    state === 'Consultation'
      ? 'task.Active.Working.resume'
      : state === 'AwaitingHuman'
        ? 'task.Active.resume'
        : undefined;
  const recorded = history ? recordedHistories(snapshot)[history]?.[0] : undefined;
  return recorded ? seedState(recorded.path).state : undefined;
}

const optionalText = z.string().optional();
const count = z.int().nonnegative();

/** The task as people and agents read it (the body of STATE.json, in ferrus's field names). */
export const taskViewSchema = z.object({
  state: z.enum(TASK_STATES),
  step: z.enum(TASK_STEPS).optional(),
  paused_state: z.enum(TASK_STATES).optional(),
  task: optionalText,
  check_retries: count,
  review_cycles: count,
  max_check_retries: count,
  max_review_cycles: count,
  failure_reason: optionalText,
  check_feedback: optionalText,
  review: optionalText,
  submission: optionalText,
  consult_question: optionalText,
  consult_response: optionalText,
  human_question: optionalText,
  human_answer: optionalText,
});
export type TaskView = z.infer<typeof taskViewSchema>;

export function taskView(snapshot: TaskSnapshot): TaskView {
  const { state, step } = seedState(atomicStatePath(snapshot));
  const paused = pausedState(snapshot);
  const c = snapshot.context;
  const view: TaskView = {
    state,
    ...(step && { step }),
    ...(paused && { paused_state: paused }),
    task: c.task,
    check_retries: c.checkRetries,
    review_cycles: c.reviewCycles,
    max_check_retries: c.limits.maxCheckRetries,
    max_review_cycles: c.limits.maxReviewCycles,
    failure_reason: c.failureReason,
    check_feedback: c.checkFeedback,
    review: c.review,
    submission: c.submission,
    consult_question: c.consultQuestion,
    consult_response: c.consultResponse,
    human_question: c.humanQuestion,
    human_answer: c.humanAnswer,
  };
  // Absent rather than undefined, so that a view equals its JSON round trip.
  return Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined)) as TaskView;
}
