/**
 * What an agent process is started with: the input of the shared agent process actor
 * (src/actors/agent-process.ts), which the codon and session machines build. Declared here, below
 * both, so that machines/ never imports src/actors.
 */
import { z } from 'zod';
import { agentPricingSchema, agentUsageSchema } from './agent-pricing.js';
import { duration } from './duration.js';

const nonBlank = z.string().refine((value) => value.trim().length > 0, { error: 'must not be blank' });

export const agentInputSchema = z.object({
  /** The program and its arguments. */
  command: z.array(nonBlank).min(1),
  cwd: z.string().optional(),
  /** Added to the runtime's own environment. */
  env: z.record(z.string(), z.string()).optional(),
  /** Written to the agent's stdin. */
  prompt: z.string().optional(),
  /** The raw stream-json log; `<logPath>.stderr` and `<logPath>.pid` sit beside it. */
  logPath: nonBlank,
  /** Time between SIGTERM and SIGKILL on stop (default 5000 ms). */
  graceMs: duration(0).optional(),
  /** Prices the agent's usage where it reports no cost itself (Codex): the result's cost is then derived from them. */
  pricing: agentPricingSchema.optional(),
  /**
   * The thread this run resumes and its usage before the run, as the run before it reported
   * (`agent.result`'s `threadUsage`): Codex's `turn.completed` counts the whole thread, so the
   * result's usage and cost are the difference. Applied only when the agent names this thread.
   */
  threadUsage: z.strictObject({ sessionId: nonBlank, usage: agentUsageSchema }).optional(),
  /**
   * The agent's model calls go through statewright's metering proxy (src/actors/agent-wire/): each
   * call's usage is reported as it ends (`agent.metered`), a failing upstream as it fails
   * (`agent.upstreamFailed`), and a call made once `budgetUsd` is spent (at `pricing`) is refused.
   * Only for an agent whose model endpoint can be found (Claude Code, `codex exec`); others run as they are.
   */
  wire: z.strictObject({ budgetUsd: z.number().positive().optional() }).optional(),
  /** Reports `agent.stalled` once the agent has written nothing for this long (no output at all). */
  stallMs: duration(1).optional(),
  /** A process recorded before a restart, to adopt rather than spawn again. */
  recordedPid: z.number().int().positive().optional(),
  recordedPidStart: z.string().optional(),
});

export type AgentInput = z.infer<typeof agentInputSchema>;

/** A resumed thread and its usage before the run (`AgentInput.threadUsage`). */
export type AgentThreadUsage = NonNullable<AgentInput['threadUsage']>;
