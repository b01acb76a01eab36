/**
 * The run level of Hankweave as a hosted run of its own (lifecycle `codon-run`): one Hankweave run,
 * started by the seed's RunStarted, ended by RunCompleted, RunFailed or RunCrashed.
 *
 * Why a run of its own: RunStarted, RunCompleted, RunFailed, RunCrashed and InitialCheckpointSet
 * belong to no codon, and they must survive a crash like everything else, so they need a durable
 * home with the same commit, audit and recovery rules as the codons. Each codon attempt is a hosted
 * `codon` run of its own, started with this run's id in its input; the run-level document of the seed
 * (`CodonRunsState`, runs newest first with their codons) is not stored a second time but fed from
 * the committed steps of both (src/codon/state-manager.ts), so no codon record exists twice.
 * Its recovery hook marks the run crashed when its owner is gone, the current run included.
 */
import { assign, setup } from 'xstate';
import { z } from 'zod';
import { lifecycleHelpers } from '../../src/graph/lifecycle-helpers.js';
import { metadataGuard, parseInput } from '../../src/graph/metadata-guard.js';
import { codonStatusSchema } from '../codon/schemas.js';
import type { CodonStatus } from '../codon/types.js';
import { isoTime } from '../codon/record.js';
import { startingConditionsSchema, type StartingConditions } from '../codon/runs.js';

const nonBlank = z.string().refine((value) => value.trim().length > 0, { error: 'must not be blank' });

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

export type RunLevelStatus = 'running' | 'completed' | 'failed' | 'crashed';

export interface CodonRunContext {
  runId: string;
  runFolder: string;
  gitBranch: string;
  startingConditions: StartingConditions;
  serverPid: number;
  startTime: string;
  endTime?: string;
  initialCheckpoint?: string;
}

export type CodonRunLevelEvent =
  | { type: 'RunCompleted'; data: { runId: string }; at?: number }
  | { type: 'RunFailed'; data: { runId: string }; at?: number }
  | { type: 'RunCrashed'; data: { runId: string; detectedAt: string; lastCodonStatus: CodonStatus | 'unknown' }; at?: number }
  | { type: 'InitialCheckpointSet'; data: { sha: string }; at?: number };

const data = (event: unknown) => (event as { data?: unknown }).data;
const addressed = (shape: z.ZodRawShape = {}) => z.object({ runId: nonBlank, ...shape });

export const runLevelEventSchemas = {
  RunCompleted: addressed(),
  RunFailed: addressed(),
  RunCrashed: addressed({ detectedAt: z.iso.datetime(), lastCodonStatus: z.union([codonStatusSchema, z.literal('unknown')]) }),
  InitialCheckpointSet: z.object({ sha: nonBlank }),
};

/** The Run* events name their run: one naming another run is refused here, not applied. */
const thisRun = z.object({ runId: z.unknown(), thisRun: z.string() }).loose().refine((value) => value.runId === value.thisRun, {
  path: ['runId'],
  error: 'names another run than this one',
});
const runGuard = (type: 'RunCompleted' | 'RunFailed' | 'RunCrashed', target: string) =>
  metadataGuard(z.intersection(runLevelEventSchemas[type], thisRun), target, (event, context?: CodonRunContext) => ({ ...(data(event) as object), thisRun: context?.runId }), {
    name: `${type} data`,
  });

export const codonRunMachine = setup({
  types: { context: {} as CodonRunContext, events: {} as CodonRunLevelEvent, input: {} as unknown },
  actions: {
    ended: assign({ endTime: ({ event }) => isoTime(event.at, event.type) }),
    crashed: assign({ endTime: ({ event }) => (event as Extract<CodonRunLevelEvent, { type: 'RunCrashed' }>).data.detectedAt }),
    checkpoint: assign({ initialCheckpoint: ({ event }) => (event as Extract<CodonRunLevelEvent, { type: 'InitialCheckpointSet' }>).data.sha }),
  },
}).createMachine({
  id: 'codon-run',
  initial: 'running',
  // Its codons run elsewhere; their outcome (RunCompleted, RunFailed, RunCrashed) comes from the run's driver.
  meta: { waitsFor: "the run's driver, which reports the outcome of its codons" },
  context: ({ input }) => {
    // RunStarted's data and startedAt.
    const { startedAt, ...run } = parseInput(codonRunInputSchema, input, 'Codon-run', 'running');
    return { ...run, startTime: isoTime(startedAt, 'RunStarted') };
  },
  states: {
    running: {
      on: {
        RunCompleted: { target: 'completed', guard: runGuard('RunCompleted', 'completed'), actions: 'ended' },
        RunFailed: { target: 'failed', guard: runGuard('RunFailed', 'failed'), actions: 'ended' },
        RunCrashed: { target: 'crashed', guard: runGuard('RunCrashed', 'crashed'), actions: 'crashed' },
        InitialCheckpointSet: { guard: metadataGuard(runLevelEventSchemas.InitialCheckpointSet, 'running', data, { name: 'InitialCheckpointSet data' }), actions: 'checkpoint' },
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
    crashed: { type: 'final' },
  },
});

/** The run level's helpers (running until RunCompleted, RunFailed or RunCrashed), like every lifecycle's. */
export const codonRun = lifecycleHelpers<RunLevelStatus, CodonRunLevelEvent['type'], Exclude<RunLevelStatus, 'running'>>(codonRunMachine);
