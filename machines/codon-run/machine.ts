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
import { lifecycleHelpers } from '../../src/graph/lifecycle-helpers.js';
import { parseInput } from '../../src/graph/metadata-guard.js';
import { isoTime } from '../codon/record.js';
import { codonRunInputSchema } from './config.js';
import type { CodonRunContext, RunLevelStatus } from './context.js';
import type { CodonRunLevelEvent } from './events.js';
import { initialCheckpointGuard, runGuard } from './guards.js';

export const codonRunMachine = setup({
  types: { context: {} as CodonRunContext, events: {} as CodonRunLevelEvent, input: {} as unknown },
  actions: {
    ended: assign({ endTime: ({ event }) => isoTime(event.at, event.type) }),
    crashed: assign({
      endTime: ({ event }) => (event as Extract<CodonRunLevelEvent, { type: 'RunCrashed' }>).data.detectedAt,
    }),
    checkpoint: assign({
      initialCheckpoint: ({ event }) =>
        (event as Extract<CodonRunLevelEvent, { type: 'InitialCheckpointSet' }>).data.sha,
    }),
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
        InitialCheckpointSet: { guard: initialCheckpointGuard, actions: 'checkpoint' },
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
    crashed: { type: 'final' },
  },
});

/** The run level's helpers (running until RunCompleted, RunFailed or RunCrashed), like every lifecycle's. */
export const codonRun = lifecycleHelpers<
  RunLevelStatus,
  CodonRunLevelEvent['type'],
  Exclude<RunLevelStatus, 'running'>
>(codonRunMachine);
