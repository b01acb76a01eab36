/**
 * The registry of every lifecycle. The runtime, the tests, the diagrams and the CLI iterate it,
 * so a new lifecycle needs one line here and nothing else.
 */
import { codonMachine, codonRunMachine, recoverCodon, recoverCodonRun } from './codon.js';
import { executionDefinition } from './execution/index.js';
import { reviewLoopDefinition } from './review-loop/index.js';
import { recoverTask, taskMachine, taskMigrations } from './task.js';
import { recoverSession, sessionIndexes, sessionMachine } from './session.js';
import type { Lifecycle } from './lifecycle.js';
import { explainSession } from './session/explain.js';
import { explainTask } from './task/explain.js';
import { explainCodon } from './codon/explain.js';
import { sessionEventSchemas } from './session/events.js';
import { taskPayloads } from './task/events.js';

export type { Lifecycle, Lifecycles, IndexKey, RecoveringRun, ExplainingRun, LifecycleExplanation, PendingDecision } from './lifecycle.js';
export { duration, MAX_DURATION_MS } from './duration.js';

export const lifecycles = {
  execution: executionDefinition,
  'review-loop': reviewLoopDefinition,
  task: {
    machine: taskMachine,
    version: 2,
    migrations: taskMigrations,
    summary: 'ferrus supervisor/executor task: checks, consultation, human questions, review, with retry and review budgets, leases',
    recover: recoverTask,
    explain: explainTask,
    events: Object.keys(taskPayloads),
  },
  session: {
    machine: sessionMachine,
    version: 1,
    summary: 'hld Claude Code session: 5 states, 7 status transitions, approvals, start timeout, orphan recovery',
    recover: recoverSession,
    indexes: sessionIndexes,
    explain: explainSession,
    events: Object.keys(sessionEventSchemas),
  },
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
export * from './task.js';
export * from './session.js';
export * from './codon.js';

