/** The task's context, and a fresh one for a new task. */
import type { TaskLimits } from './config.js';
import type { AgentId } from './agent.js';
import type { Lease } from './lease.js';

/** Fields are present even when empty (undefined), so that a new task can clear every one of them. */
export interface TaskContext {
  readonly limits: TaskLimits;
  readonly leaseTtlMs: number;
  /** Who has claimed the task, until when; cleared on create_task, submit, approve, reject, and at the end. */
  readonly lease: Lease | undefined;
  /** Set when the lease timer fired: the lease is dead whatever time a later event carries. */
  readonly leaseExpired: boolean;
  /** The executor whose check is running or last ran: its results count only while it holds the task. */
  readonly checkRequestedBy: AgentId | undefined;
  readonly task: string | undefined;
  /** Consecutive failed checks; a pass and a rejection reset it. */
  readonly checkRetries: number;
  /** Rejections of this task so far. */
  readonly reviewCycles: number;
  /** The tail of the last failed check's output, for the executor; a pass clears it. */
  readonly checkFeedback: string | undefined;
  /** The supervisor's notes from the last rejection, for the executor; the next submit clears them. */
  readonly review: string | undefined;
  readonly submission: string | undefined;
  /** The executor's question to the supervisor and the supervisor's response. */
  readonly consultQuestion: string | undefined;
  readonly consultResponse: string | undefined;
  /** A question for a person and their answer (kept for the agent after it resumes). */
  readonly humanQuestion: string | undefined;
  readonly humanAnswer: string | undefined;
  readonly failureReason: string | undefined;
}

/**
 * A context for a new task: counters at zero, nothing left over from the last one. Every field is
 * named, since `assign` merges into the old context rather than replacing it.
 */
export const freshTask = (
  { limits, leaseTtlMs }: Pick<TaskContext, 'limits' | 'leaseTtlMs'>,
  task?: string,
): TaskContext => ({
  limits,
  leaseTtlMs,
  lease: undefined,
  leaseExpired: false,
  checkRequestedBy: undefined,
  task,
  checkRetries: 0,
  reviewCycles: 0,
  checkFeedback: undefined,
  review: undefined,
  submission: undefined,
  consultQuestion: undefined,
  consultResponse: undefined,
  humanQuestion: undefined,
  humanAnswer: undefined,
  failureReason: undefined,
});

/** The lease as of the event: one whose timer fired counts as dead at once. */
export function leaseAt(context: TaskContext, at: number): Lease | undefined {
  const { lease } = context;
  return lease && context.leaseExpired ? { ...lease, leaseUntil: Math.min(lease.leaseUntil, at) } : lease;
}

export const eventTime = (event: { at?: unknown }) => (typeof event.at === 'number' ? event.at : undefined);
