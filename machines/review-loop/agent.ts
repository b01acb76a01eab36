/** What each agent of the loop, the primary and the reviewer, is invoked with. */
import type { AgentProcessRecord, ReviewLoopContext, Verdict } from './context.js';

export type AgentRole = 'primary' | 'reviewer';

/** The input an agent actor is invoked with: which agent, which iteration, what to continue or adopt. */
export interface AgentInvocation {
  readonly role: AgentRole;
  readonly iteration: number;
  readonly sessionId?: string;
  readonly recorded?: AgentProcessRecord;
  readonly primaryVerdict?: Verdict;
}

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
