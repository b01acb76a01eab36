/** The run level's events (the seed's Run* events and InitialCheckpointSet), and the schemas of their data. */
import { z } from 'zod';
import { codonStatusSchema } from '../codon/schemas.js';
import type { CodonStatus } from '../codon/types.js';
import { nonBlank } from './config.js';

export type CodonRunLevelEvent =
  | { type: 'RunCompleted'; data: { runId: string }; at?: number }
  | { type: 'RunFailed'; data: { runId: string }; at?: number }
  | {
      type: 'RunCrashed';
      data: { runId: string; detectedAt: string; lastCodonStatus: CodonStatus | 'unknown' };
      at?: number;
    }
  | { type: 'InitialCheckpointSet'; data: { sha: string }; at?: number };

const addressed = (shape: z.ZodRawShape = {}) => z.object({ runId: nonBlank, ...shape });

export const runLevelEventSchemas = {
  RunCompleted: addressed(),
  RunFailed: addressed(),
  RunCrashed: addressed({
    detectedAt: z.iso.datetime(),
    lastCodonStatus: z.union([codonStatusSchema, z.literal('unknown')]),
  }),
  InitialCheckpointSet: z.object({ sha: nonBlank }),
};
