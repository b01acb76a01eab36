/**
 * The built-in lifecycles. The runtime, the tests, the diagrams and the CLI iterate this list. A
 * new lifecycle is a folder beside these (machine.ts, context.ts, events.ts, guards.ts, recover.ts,
 * explain.ts, and index.ts exporting its Lifecycle) and one line here.
 *
 * This file is also `statewright/machines`: it publishes each lifecycle's names (its index), and
 * the types and the `duration` schema that every lifecycle shares.
 */
import { codonRunDefinition } from './codon-run/index.js';
import { codonDefinition } from './codon/index.js';
import { executionDefinition } from './execution/index.js';
import type { Lifecycle } from './lifecycle.js';
import { reviewLoopDefinition } from './review-loop/index.js';
import { sessionDefinition } from './session/index.js';
import { taskDefinition } from './task/index.js';

export const lifecycles = {
  execution: executionDefinition,
  'review-loop': reviewLoopDefinition,
  task: taskDefinition,
  session: sessionDefinition,
  codon: codonDefinition,
  'codon-run': codonRunDefinition,
} satisfies Record<string, Lifecycle>;

export type LifecycleName = keyof typeof lifecycles;

export type {
  Lifecycle,
  Lifecycles,
  IndexKey,
  RecoveringRun,
  ExplainingRun,
  LifecycleExplanation,
  PendingDecision,
} from './lifecycle.js';
export { duration, MAX_DURATION_MS } from './duration.js';
export * from './execution/index.js';
export * from './review-loop/index.js';
export * from './task/index.js';
export * from './session/index.js';
export * from './codon/index.js';
export * from './codon-run/index.js';
