/** What a Hankweave run is started with: RunStarted's data, and when it started. Validated once, at start. */
import { z } from 'zod';
import { startingConditionsSchema } from '../codon/runs.js';

export const nonBlank = z.string().refine((value) => value.trim().length > 0, { error: 'must not be blank' });

/** What a run is started with: RunStarted's data, and when it started (ms, the runtime's clock). */
export const codonRunInputSchema = z.object({
  runId: nonBlank,
  runFolder: z.string(),
  gitBranch: z.string(),
  startingConditions: startingConditionsSchema,
  serverPid: z.number().int(),
  startedAt: z.number().finite(),
});
export type CodonRunInput = z.input<typeof codonRunInputSchema>;
