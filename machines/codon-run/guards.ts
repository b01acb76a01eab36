/** The run level's guards: each event's data checked against its schema, and the Run* events against this run's id. */
import { z } from 'zod';
import { metadataGuard } from '../../src/graph/metadata-guard.js';
import type { CodonRunContext } from './context.js';
import { runLevelEventSchemas } from './events.js';

/** An event's `data`. */
export const data = (event: unknown) => (event as { data?: unknown }).data;

/** The Run* events name their run: one naming another run is refused here, not applied. */
const thisRun = z
  .object({ runId: z.unknown(), thisRun: z.string() })
  .loose()
  .refine((value) => value.runId === value.thisRun, {
    path: ['runId'],
    error: 'names another run than this one',
  });
export const runGuard = (type: 'RunCompleted' | 'RunFailed' | 'RunCrashed', target: string) =>
  metadataGuard(
    z.intersection(runLevelEventSchemas[type], thisRun),
    target,
    (event, context?: CodonRunContext) => ({ ...(data(event) as object), thisRun: context?.runId }),
    {
      name: `${type} data`,
    },
  );

export const initialCheckpointGuard = metadataGuard(runLevelEventSchemas.InitialCheckpointSet, 'running', data, {
  name: 'InitialCheckpointSet data',
});
