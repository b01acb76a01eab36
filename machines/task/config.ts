/** What a task is started with: its budgets and its lease's time to live (ferrus.toml's `[limits]` and `[lease]`). */
import { z } from 'zod';
import { duration } from '../duration.js';

export interface TaskLimits {
  /** Consecutive check failures that fail the task (the one reaching the limit does). */
  readonly maxCheckRetries: number;
  /** Rejections that fail the task (the one reaching the limit does). */
  readonly maxReviewCycles: number;
}

/** ferrus's defaults (`[limits]` in ferrus.toml). */
export const DEFAULT_TASK_LIMITS: TaskLimits = { maxCheckRetries: 20, maxReviewCycles: 3 };

const limit = z.int().min(1);
export const taskInputSchema = z
  .object({
    limits: z.object({ maxCheckRetries: limit, maxReviewCycles: limit }).partial().optional(),
    /** How long a claim or heartbeat holds the task (ferrus's `[lease] ttl_secs`, in ms). */
    lease: z.object({ ttlMs: duration() }).partial().optional(),
  })
  .optional();

/** ferrus's `[lease] ttl_secs` default, 90 s. */
export const DEFAULT_LEASE_TTL_MS = 90_000;
export type TaskInput = z.input<typeof taskInputSchema>;
