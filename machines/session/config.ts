/**
 * What a session is started with: the prompt, its log, and the configuration a continued (child)
 * session inherits. Validated once, when the run starts.
 */
import { z } from 'zod';
import { parseInput } from '../../src/graph/metadata-guard.js';
import { agentPricingSchema } from '../agent-pricing.js';
import { duration } from '../duration.js';

/** What a session runs with; a continued (child) session inherits all of it but `max_turns`. */
export const sessionConfigSchema = z.strictObject({
  /** The agent program and its leading arguments; the Claude flags are appended. Default `['claude']`. */
  command: z.array(z.string().min(1)).min(1).optional(),
  model: z.string().min(1).optional(),
  /** Where the agent runs. A session without one cannot be continued: Claude keeps its conversation under that folder. */
  working_dir: z.string().min(1).optional(),
  system_prompt: z.string().optional(),
  append_system_prompt: z.string().optional(),
  permission_prompt_tool: z.string().min(1).optional(),
  allowed_tools: z.array(z.string().min(1)).optional(),
  disallowed_tools: z.array(z.string().min(1)).optional(),
  additional_directories: z.array(z.string().min(1)).optional(),
  /** MCP servers by name, passed to Claude as `--mcp-config {"mcpServers": ...}`. */
  mcp_servers: z.record(z.string(), z.unknown()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  max_turns: z.number().int().positive().optional(),
  /** USD per million tokens: the cost of a result that reports none (a Codex turn). */
  pricing: agentPricingSchema.optional(),
  /** How long a session may stay in starting before it fails (seed: 60 s). */
  start_timeout_ms: duration().optional(),
  /** How long an approval may stay pending before the session fails; unset means no limit. */
  approval_timeout_ms: duration().optional(),
  /**
   * How long an interrupted agent has to write its last words (Claude's result with the cost of
   * the call it aborted) and exit on its SIGINT before the session fails without them (default 3 s).
   */
  interrupt_grace_ms: duration().optional(),
  /**
   * hld's auto-accept: the edit tools (Edit, Write, MultiEdit) are approved without asking. The
   * approval is recorded as approved and the session stays running.
   */
  auto_accept_edits: z.boolean().optional(),
  /**
   * hld's bypass: every tool call is approved without asking, as auto_accept_edits does, until
   * `dangerously_skip_permissions_timeout_ms` after the session was created (if set); after that
   * a tool call waits for a person again.
   */
  dangerously_skip_permissions: z.boolean().optional(),
  dangerously_skip_permissions_timeout_ms: duration().optional(),
});
export type SessionConfig = z.infer<typeof sessionConfigSchema>;

export const sessionInputSchema = z.strictObject({
  /** The prompt, written to the agent's stdin. */
  query: z.string().min(1),
  /** When the session was created, on the runtime's clock: duration and the start deadline count from it. */
  created_at: z.number(),
  /** Where the agent's raw stream-json output is kept. */
  log_path: z.string().min(1),
  config: sessionConfigSchema.optional(),
  /** Set on a continued session: the session it continues. */
  parent_session_id: z.string().min(1).optional(),
  /** The Claude session to resume (`--resume <id> --fork-session`); a child resumes its parent's. */
  resume_claude_session_id: z.string().min(1).optional(),
});
export type SessionInput = z.infer<typeof sessionInputSchema>;

export const DEFAULT_SESSION_START_TIMEOUT_MS = 60_000;

/** How long an interrupted agent has to exit on its SIGINT, unless `interrupt_grace_ms` says otherwise. */
export const DEFAULT_SESSION_INTERRUPT_GRACE_MS = 3_000;

/** Validates a session's input; throws `MetadataValidationError` naming every missing or wrong field. */
export function parseSessionInput(input: unknown): SessionInput {
  return parseInput(sessionInputSchema, input, 'Session', 'starting');
}
