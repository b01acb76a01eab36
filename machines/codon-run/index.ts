/**
 * The run level of Hankweave (lifecycle `codon-run`): one run of codons, from RunStarted to
 * RunCompleted, RunFailed or RunCrashed. What its users import, and its entry in the registry.
 * Its parts: machine.ts, config.ts (input), context.ts, events.ts, guards.ts, recover.ts; the
 * seed's run-level document it feeds (runs, their codons, costs) is machines/codon/runs.ts.
 *
 * No explain.ts: its codons run as codon runs of their own, and the generic verdict (its
 * `waitsFor`: the run's driver) says what it waits for.
 */
import type { Lifecycle } from '../lifecycle.js';
import { codonRunMachine } from './machine.js';
import { recoverCodonRun } from './recover.js';
import { codonRunTesting } from './test-events.js';

export { codonRun, codonRunMachine } from './machine.js';
export { codonRunInputSchema, type CodonRunInput } from './config.js';
export type { CodonRunContext, RunLevelStatus } from './context.js';
export { runLevelEventSchemas, type CodonRunLevelEvent } from './events.js';
export { recoverCodonRun } from './recover.js';

export const codonRunDefinition = {
  machine: codonRunMachine,
  version: 1,
  strict: true,
  summary: 'Hankweave run: the run level its codons belong to, running until RunCompleted, RunFailed or RunCrashed',
  recover: recoverCodonRun,
  // The run's driver reports every event.
  personEvents: [],
  ...codonRunTesting,
} satisfies Lifecycle;
