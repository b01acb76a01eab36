/**
 * The review loop of agentpair (seed: review-loop-state-machine.txt): a primary agent works, a
 * reviewer reviews, until DONE/PASS, FAIL or the iteration limit. What its users import, and its
 * entry in the registry. Its parts: machine.ts, config.ts (input), context.ts, events.ts,
 * guards.ts, agent.ts (what each agent is invoked with).
 *
 * No recover.ts: a restored loop resumes where it was, and its agent actor adopts the recorded
 * process instead of spawning a second one (src/review-loop/). No explain.ts: the generic verdict
 * (the agent it has invoked) says what it waits for.
 */
import type { Lifecycle } from '../lifecycle.js';
import { reviewLoopInputSchema } from './config.js';
import { reviewLoopMachine } from './machine.js';
import { reviewLoopTesting } from './test-events.js';

export { reviewLoop, reviewLoopMachine, type ReviewLoopState, type TerminalReviewLoopState } from './machine.js';
export { DEFAULT_MAX_ITERATIONS, reviewLoopInputSchema, type ReviewLoopInput } from './config.js';
export {
  CONTEXT_CANCELLED,
  MAX_ITERATIONS_REACHED,
  verdictSchema,
  type AgentProcessRecord,
  type ReviewLoopContext,
  type Verdict,
} from './context.js';
export type { ReviewLoopEvent, ReviewLoopEventType } from './events.js';
export { agentInvocation, type AgentInvocation, type AgentRole } from './agent.js';

export const reviewLoopDefinition = {
  machine: reviewLoopMachine,
  version: 1,
  strict: true,
  summary:
    'agentpair review loop: a primary agent works, a reviewer reviews, until DONE/PASS, FAIL or the iteration limit',
  input: reviewLoopInputSchema,
  // The agents and their invocations report the rest.
  personEvents: ['CANCEL'],
  ...reviewLoopTesting,
} satisfies Lifecycle;
