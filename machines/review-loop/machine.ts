/**
 * The review loop of agentpair: a primary agent works, a reviewer checks the work, until the
 * primary signals DONE, the review passes, a FAIL signal, an agent error, a cancel, or the
 * iteration budget runs out (seed: review-loop-state-machine.txt).
 *
 * The machine decides only from semantic events named after the seed's triggers. Reading an
 * agent's output (signals, review verdicts, consensus) is done in `src/review-loop/`, which turns
 * each finished agent run into one of these events; the machine stays pure and total.
 *
 * The iteration counter lives in context and is bounded by `maxIterations`, so the reachable
 * graph is finite: a request for more work with the budget spent fails the loop with
 * "max iterations reached" instead of starting iteration `maxIterations + 1`.
 */
import { assign, fromCallback, setup, type EventObject, type StateValueFrom } from 'xstate';
import { lifecycleHelpers } from '../../src/graph/lifecycle-helpers.js';
import { agentInvocation, type AgentInvocation } from './agent.js';
import { reviewLoopInputSchema, type ReviewLoopInput } from './config.js';
import { CONTEXT_CANCELLED, MAX_ITERATIONS_REACHED, type ReviewLoopContext } from './context.js';
import type { ReviewLoopEvent, ReviewLoopEventType } from './events.js';
import { reviewLoopGuards } from './guards.js';

const placeholder = <I>() => fromCallback<EventObject, I>(() => {});

const withReason = (prefix: string, reason: string | undefined) => (reason ? `${prefix}: ${reason}` : prefix);

export const reviewLoopMachine = setup({
  types: {
    context: {} as ReviewLoopContext,
    events: {} as ReviewLoopEvent,
    input: {} as ReviewLoopInput | undefined,
  },
  actors: {
    /** Checks that every configured agent can start; sends AGENTS_STARTED or AGENT_START_FAILED. */
    startAgents: placeholder<{ mode: 'paired' | 'single' }>(),
    primary: placeholder<AgentInvocation>(),
    reviewer: placeholder<AgentInvocation>(),
  },
  guards: reviewLoopGuards,
  actions: {
    /** Counts the iteration that starts now and forgets the last one's process and verdict. */
    startIteration: assign(({ context }) => ({
      iteration: context.iteration + 1,
      process: undefined,
      primaryVerdict: undefined,
    })),
    recordProcess: assign({
      process: ({ event }) => {
        const { pid, pidStart, logPath } = event as Extract<ReviewLoopEvent, { type: 'agent.spawned' }>;
        return { pid, pidStart, logPath };
      },
    }),
    failBudgetSpent: assign({ error: MAX_ITERATIONS_REACHED }),
    failWithError: assign({ error: ({ event }) => (event as { error: string }).error }),
    failWithSignal: assign({ error: ({ event }) => withReason('FAIL', (event as { reason?: string }).reason) }),
    failCancelled: assign({
      error: ({ event }) => withReason(CONTEXT_CANCELLED, (event as { reason?: string }).reason),
    }),
    completeDone: assign({ reason: ({ event }) => withReason('DONE', (event as { reason?: string }).reason) }),
    completePass: assign({ reason: ({ event }) => withReason('PASS', (event as { reason?: string }).reason) }),
  },
}).createMachine({
  id: 'review-loop',
  initial: 'init',
  context: ({ input }) => {
    const { maxIterations, mode } = reviewLoopInputSchema.parse(input ?? {});
    return { maxIterations, mode, iteration: 0, sessions: {} };
  },
  states: {
    /** Run created, agents starting. */
    init: {
      invoke: { id: 'startAgents', src: 'startAgents', input: ({ context }) => ({ mode: context.mode }) },
      on: {
        AGENTS_STARTED: { target: 'working', actions: 'startIteration' },
        AGENT_START_FAILED: { target: 'failed', guard: 'hasError', actions: 'failWithError' },
        CANCEL: { target: 'failed', actions: 'failCancelled' },
      },
    },
    /** The primary agent executes the task. */
    working: {
      invoke: { id: 'primary', src: 'primary', input: ({ context }) => agentInvocation('primary', context) },
      on: {
        'agent.spawned': { guard: 'isSpawnReport', actions: 'recordProcess' },
        'agent.session': {
          guard: 'hasSessionId',
          actions: assign({ sessions: ({ context, event }) => ({ ...context.sessions, primary: event.sessionId }) }),
        },
        PRIMARY_FINISHED: [
          {
            target: 'reviewing',
            guard: 'paired',
            actions: assign({ process: undefined, primaryVerdict: ({ event }) => event.verdict ?? 'none' }),
          },
          // Single-agent mode: no reviewer, the primary runs again in a new iteration.
          { target: 'working', guard: 'singleWithinBudget', reenter: true, actions: 'startIteration' },
          { target: 'failed', guard: 'budgetSpent', actions: 'failBudgetSpent' },
        ],
        DONE: { target: 'complete', actions: 'completeDone' },
        AGENT_ERROR: { target: 'failed', guard: 'hasError', actions: 'failWithError' },
        FAIL: { target: 'failed', actions: 'failWithSignal' },
        CANCEL: { target: 'failed', actions: 'failCancelled' },
      },
    },
    /** The reviewer checks the primary's work. */
    reviewing: {
      invoke: { id: 'reviewer', src: 'reviewer', input: ({ context }) => agentInvocation('reviewer', context) },
      on: {
        'agent.spawned': { guard: 'isSpawnReport', actions: 'recordProcess' },
        'agent.session': {
          guard: 'hasSessionId',
          actions: assign({ sessions: ({ context, event }) => ({ ...context.sessions, reviewer: event.sessionId }) }),
        },
        PASS: { target: 'complete', actions: 'completePass' },
        CHANGES_REQUESTED: [
          { target: 'working', guard: 'withinBudget', actions: 'startIteration' },
          { target: 'failed', guard: 'budgetSpent', actions: 'failBudgetSpent' },
        ],
        AGENT_ERROR: { target: 'failed', guard: 'hasError', actions: 'failWithError' },
        FAIL: { target: 'failed', actions: 'failWithSignal' },
        CANCEL: { target: 'failed', actions: 'failCancelled' },
      },
    },
    /** Task finished successfully. */
    complete: { type: 'final' },
    /** Error, FAIL signal, cancel, or max iterations reached. */
    failed: { type: 'final' },
  },
});

/** init, working, reviewing, complete or failed: the machine's states. */
export type ReviewLoopState = StateValueFrom<typeof reviewLoopMachine>;
export type TerminalReviewLoopState = Extract<ReviewLoopState, 'complete' | 'failed'>;

/** The review loop's helpers: `states` in the seed's order, `terminalStates` (complete, failed), `isTerminal`, ... like every lifecycle's. */
export const reviewLoop = lifecycleHelpers<ReviewLoopState, ReviewLoopEventType, TerminalReviewLoopState>(
  reviewLoopMachine,
);
