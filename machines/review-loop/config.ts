/** What a review loop is started with: its iteration budget and whether a reviewer takes part. Validated once, at start. */
import { z } from 'zod';

export const DEFAULT_MAX_ITERATIONS = 20;

export const reviewLoopInputSchema = z
  .object({
    /** Iterations allowed before the loop fails with "max iterations reached". */
    maxIterations: z.number().int().min(1).default(DEFAULT_MAX_ITERATIONS),
    /** `single`: the primary works alone, no reviewer, until it signals DONE (or PASS). */
    mode: z.enum(['paired', 'single']).default('paired'),
  })
  .strict();
export type ReviewLoopInput = z.input<typeof reviewLoopInputSchema>;
