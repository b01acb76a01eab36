/**
 * The execution lifecycle of kici: runs, jobs and steps of a CI orchestrator and its agents
 * (seed: kici-execution-state-machine.txt). What its users import, and its entry in the registry.
 *
 * Only machine.ts beside this file: the machine is a pure table with no context, its events are
 * the names in that table (`ExecutionEvent`, derived there), and it has no guards. No recovery
 * rule: a restored run waits where it was, since the orchestrator sends every event and owns every
 * timer. No explain: the generic verdict (its `waitsFor`) says it all. A `held` run waits for a
 * person (the reviewers a protection rule requires), who decides it with APPROVE or REJECT.
 */
import type { Lifecycle } from '../lifecycle.js';
import { executionMachine } from './machine.js';

export {
  execution,
  executionMachine,
  InvalidTransitionError,
  type ExecutionEvent,
  type ExecutionState,
  type TerminalExecutionState,
} from './machine.js';

export const executionDefinition = {
  machine: executionMachine,
  version: 1,
  strict: true,
  summary: 'kici run, job and step execution: 11 states, 16 events, 25 transitions',
  waitsFor: {
    held: {
      summary: 'a reviewer to APPROVE or REJECT it (a protection rule holds it for required reviewers)',
      approve: { type: 'APPROVE' },
      deny: { type: 'REJECT' },
    },
  },
} satisfies Lifecycle;
