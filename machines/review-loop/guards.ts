/**
 * The review loop's guards, named in the machine's `setup()`: an event's payload (a metadata guard,
 * so a refusal names the bad fields), the mode, and the iteration budget.
 */
import { budgetGuard } from '../../src/graph/budget-guard.js';
import { metadataGuard } from '../../src/graph/metadata-guard.js';
import { agentProcessSchema, type ReviewLoopContext } from './context.js';
import { agentSessionSchema, errorSchema } from './events.js';

type GuardArgs = { context: ReviewLoopContext };

export const reviewLoopGuards = {
  hasError: metadataGuard(errorSchema, 'failed'),
  isSpawnReport: metadataGuard(agentProcessSchema, 'agent process record'),
  hasSessionId: metadataGuard(agentSessionSchema, 'agent session'),
  paired: ({ context }: GuardArgs) => context.mode === 'paired',
  singleWithinBudget: budgetGuard(
    ({ context }: GuardArgs) => context.mode === 'single' && context.iteration < context.maxIterations,
    'iteration',
  ),
  withinBudget: budgetGuard(({ context }: GuardArgs) => context.iteration < context.maxIterations, 'iteration'),
  budgetSpent: ({ context }: GuardArgs) => context.iteration >= context.maxIterations,
};
