/**
 * The registry of every lifecycle. The runtime, the tests, the diagrams and the CLI iterate it,
 * so a new lifecycle needs one line here and nothing else.
 */
import { codonMachine, codonRunMachine, recoverCodon, recoverCodonRun } from './codon/index.js';
import { executionDefinition } from './execution/index.js';
import { reviewLoopDefinition } from './review-loop/index.js';
import { taskDefinition } from './task/index.js';
import { sessionDefinition } from './session/index.js';
import type { Lifecycle } from './lifecycle.js';
import { explainCodon } from './codon/explain.js';

export type { Lifecycle, Lifecycles, IndexKey, RecoveringRun, ExplainingRun, LifecycleExplanation, PendingDecision } from './lifecycle.js';
export { duration, MAX_DURATION_MS } from './duration.js';

export const lifecycles = {
  execution: executionDefinition,
  'review-loop': reviewLoopDefinition,
  task: taskDefinition,
  session: sessionDefinition,
  codon: {
    machine: codonMachine,
    version: 1,
    summary: 'Hankweave codon: rig setup, agent process, sentinels, costs and git checkpoints in 8 states',
    recover: recoverCodon,
    explain: explainCodon,
  },
  'codon-run': {
    machine: codonRunMachine,
    version: 1,
    summary: 'Hankweave run: the run level its codons belong to, running until RunCompleted, RunFailed or RunCrashed',
    recover: recoverCodonRun,
  },
} satisfies Record<string, Lifecycle>;

export type LifecycleName = keyof typeof lifecycles;

export * from './execution/index.js';
export * from './review-loop/index.js';
export * from './task/index.js';
export * from './session/index.js';
export * from './codon/index.js';

