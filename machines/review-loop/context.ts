/**
 * The review loop's context: its budget and mode, the iteration in progress, each agent's session
 * and the current agent process, and why the loop ended.
 */
import { z } from 'zod';

export const MAX_ITERATIONS_REACHED = 'max iterations reached';
export const CONTEXT_CANCELLED = 'context cancelled';

/** What a review (or the primary's own assessment) concluded; `changes` asks for another iteration. */
export const verdictSchema = z.enum(['pass', 'fail', 'changes', 'none']);
export type Verdict = z.infer<typeof verdictSchema>;

/** The process an agent actor started, kept so that a restored run adopts it instead of spawning a second one. */
export const agentProcessSchema = z.object({
  pid: z.number().int().positive(),
  pidStart: z.string().min(1),
  logPath: z.string().min(1),
});
export type AgentProcessRecord = z.infer<typeof agentProcessSchema>;

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
