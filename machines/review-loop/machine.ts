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
import { z } from 'zod';
import { budgetGuard } from '../src/graph/budget-guard.js';
import { metadataGuard } from '../src/graph/metadata-guard.js';
import { lifecycleHelpers } from '../src/graph/lifecycle-helpers.js';

export const DEFAULT_MAX_ITERATIONS = 20;
export const MAX_ITERATIONS_REACHED = 'max iterations reached';
export const CONTEXT_CANCELLED = 'context cancelled';

/** What a review (or the primary's own assessment) concluded; `changes` asks for another iteration. */
export const verdictSchema = z.enum(['pass', 'fail', 'changes', 'none']);
export type Verdict = z.infer<typeof verdictSchema>;

export const reviewLoopInputSchema = z
  .object({
    /** Iterations allowed before the loop fails with "max iterations reached". */
    maxIterations: z.number().int().min(1).default(DEFAULT_MAX_ITERATIONS),
    /** `single`: the primary works alone, no reviewer, until it signals DONE (or PASS). */
    mode: z.enum(['paired', 'single']).default('paired'),
  })
  .strict();
export type ReviewLoopInput = z.input<typeof reviewLoopInputSchema>;

/** The process an agent actor started, kept so that a restored run adopts it instead of spawning a second one. */
const processSchema = z.object({ pid: z.number().int().positive(), pidStart: z.string().min(1), logPath: z.string().min(1) });
export type AgentProcessRecord = z.infer<typeof processSchema>;
const sessionSchema = z.object({ sessionId: z.string().min(1) });
const errorSchema = z.object({ error: z.string().min(1) });

export type AgentRole = 'primary' | 'reviewer';

export interface ReviewLoopContext {
  readonly maxIterations: number;
  readonly mode: 'paired' | 'single';
  /** 0 in init; counted when an iteration starts, so it names the iteration in progress. */
  readonly iteration: number;
  /** Agent session ids, kept across iterations so each agent continues its own conversation. */
  readonly sessions: { readonly primary?: string; readonly reviewer?: string };
  /** The agent process of the current state's run, if it has reported its spawn. */
  readonly process?: AgentProcessRecord;
  /** The primary's own verdict in this iteration: half of the claudex consensus. */
  readonly primaryVerdict?: Verdict;
  /** Why the loop completed (the DONE or PASS reason). */
  readonly reason?: string;
  /** Why the loop failed. */
  readonly error?: string;
}

/** The input an agent actor is invoked with: which agent, which iteration, what to continue or adopt. */
export interface AgentInvocation {
  readonly role: AgentRole;
  readonly iteration: number;
  readonly sessionId?: string;
  readonly recorded?: AgentProcessRecord;
  readonly primaryVerdict?: Verdict;
}

/** `at` is stamped by the runtime on every event; the machine never reads a wall clock. */
type Stamped = { at?: number };
export type ReviewLoopEvent = Stamped &
  (
    | { type: 'AGENTS_STARTED' }
    | { type: 'AGENT_START_FAILED'; error: string }
    | { type: 'PRIMARY_FINISHED'; verdict?: Verdict; reason?: string }
    | { type: 'DONE'; reason?: string }
    | { type: 'PASS'; reason?: string }
    | { type: 'CHANGES_REQUESTED'; reason?: string }
    | { type: 'FAIL'; reason?: string }
    | { type: 'AGENT_ERROR'; error: string }
    | { type: 'CANCEL'; reason?: string }
    | ({ type: 'agent.spawned' } & AgentProcessRecord)
    | { type: 'agent.session'; sessionId: string }
  );
export type ReviewLoopEventType = ReviewLoopEvent['type'];

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
  guards: {
    hasError: metadataGuard(errorSchema, 'failed'),
    isSpawnReport: metadataGuard(processSchema, 'agent process record'),
    hasSessionId: metadataGuard(sessionSchema, 'agent session'),
    paired: ({ context }) => context.mode === 'paired',
    singleWithinBudget: budgetGuard(({ context }: { context: ReviewLoopContext }) => context.mode === 'single' && context.iteration < context.maxIterations, 'iteration'),
    withinBudget: budgetGuard(({ context }: { context: ReviewLoopContext }) => context.iteration < context.maxIterations, 'iteration'),
    budgetSpent: ({ context }) => context.iteration >= context.maxIterations,
  },
  actions: {
    /** Counts the iteration that starts now and forgets the last one's process and verdict. */
    startIteration: assign(({ context }) => ({ iteration: context.iteration + 1, process: undefined, primaryVerdict: undefined })),
    recordProcess: assign({
      process: ({ event }) => {
        const { pid, pidStart, logPath } = event as Extract<ReviewLoopEvent, { type: 'agent.spawned' }>;
        return { pid, pidStart, logPath };
      },
    }),
    failBudgetSpent: assign({ error: MAX_ITERATIONS_REACHED }),
    failWithError: assign({ error: ({ event }) => (event as { error: string }).error }),
    failWithSignal: assign({ error: ({ event }) => withReason('FAIL', (event as { reason?: string }).reason) }),
    failCancelled: assign({ error: ({ event }) => withReason(CONTEXT_CANCELLED, (event as { reason?: string }).reason) }),
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

/**
 * What the agent of `role` is invoked with in `context`. XState restores an invoked child with the
 * input it was first started with, not one computed from the restored context, so `recorded` is
 * only what was known at invoke time; the runner's agent actor finds a process started later
 * through the pid file the agent process actor keeps beside the iteration's log.
 */
export function agentInvocation(role: AgentRole, context: ReviewLoopContext): AgentInvocation {
  return {
    role,
    iteration: context.iteration,
    ...(context.sessions[role] !== undefined && { sessionId: context.sessions[role] }),
    ...(context.process && { recorded: context.process }),
    ...(role === 'reviewer' && context.primaryVerdict && { primaryVerdict: context.primaryVerdict }),
  };
}

/** init, working, reviewing, complete or failed: the machine's states. */
export type ReviewLoopState = StateValueFrom<typeof reviewLoopMachine>;
export type TerminalReviewLoopState = Extract<ReviewLoopState, 'complete' | 'failed'>;

/** The review loop's helpers: `states` in the seed's order, `terminalStates` (complete, failed), `isTerminal`, ... like every lifecycle's. */
export const reviewLoop = lifecycleHelpers<ReviewLoopState, ReviewLoopEventType, TerminalReviewLoopState>(reviewLoopMachine);
