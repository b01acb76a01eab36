/**
 * The session record, in the seed's field names: the machine's context. Time comes only from the
 * events (`event.at`), so the same events always give the same record.
 */
import type { AgentRetrying } from '../agent-retry.js';
import { DEFAULT_SESSION_START_TIMEOUT_MS, type SessionConfig, type SessionInput } from './config.js';

export type SessionApprovalStatus = 'pending' | 'approved' | 'denied' | 'responded' | 'expired';

/** A tool call that waits, or waited, for a person: hld's approval correlated to a tool call. */
export interface SessionApproval {
  readonly approval_id: string;
  readonly tool_name: string;
  readonly tool_input: Readonly<Record<string, unknown>>;
  readonly tool_use_id: string | null;
  readonly requested_at: number;
  /** When a pending approval times out (`approval_timeout_ms` after the request), or null for never. */
  readonly expires_at: number | null;
  readonly status: SessionApprovalStatus;
  readonly resolved_at: number | null;
  /** The reason for a denial, or the person's response. */
  readonly comment: string | null;
  /** Set when the session's config approved it without asking (hld's auto-approve); absent when a person decided. */
  readonly auto_approved?: SessionAutoApproval;
}

/** The config rule that approves a tool call without asking. */
export type SessionAutoApproval = 'auto_accept_edits' | 'dangerously_skip_permissions';

/** A tool call Claude refused itself (a deny rule, no permission prompt tool): what it reported. */
export interface SessionPermissionDenial {
  readonly tool_name: string;
  readonly tool_use_id: string;
  /** What Claude told the model, when it said (its `system/permission_denied` line). */
  readonly message: string | null;
  readonly tool_input: Readonly<Record<string, unknown>> | null;
  readonly at: number;
}

export interface SessionContext {
  readonly query: string;
  readonly config: SessionConfig;
  readonly log_path: string;
  readonly parent_session_id: string | null;
  readonly resume_claude_session_id: string | null;
  readonly created_at: number;
  /** Absolute: a session restored after a restart keeps its original deadline. */
  readonly start_deadline: number;
  readonly last_activity_at: number;
  readonly claude_session_id: string | null;
  /** The agent process, once spawned: what a restarted daemon needs to find it again. */
  readonly agent: { readonly pid: number; readonly pid_start: string; readonly log_path: string } | null;
  readonly approvals: readonly SessionApproval[];
  /** The tool calls Claude refused without asking for approval, one per tool call (a session stored before these were kept has none). */
  readonly permission_denials: readonly SessionPermissionDenial[];
  /**
   * The model call Claude is retrying (`system/api_retry`: attempt, HTTP status), until its next
   * message or result; null while it works (a session stored before these were kept has none).
   */
  readonly retrying: AgentRetrying | null;
  /**
   * An interrupt asked for (INTERRUPT or INTERRUPT_REQUESTED): the agent got SIGINT, and its exit
   * fails the session with `message`, keeping the cost of the result it wrote first; at
   * `grace_until` (when set) the session fails without waiting longer (a session stored before
   * these were kept has none). An approval that timed out asks for the same end without SIGINT:
   * `approval_id` names it, Claude got its deny and has until `grace_until` to act on it and exit.
   */
  readonly interrupt_requested: {
    readonly message: string;
    readonly at: number;
    readonly grace_until?: number;
    readonly approval_id?: string;
  } | null;
  /** Summed from the assistant messages as they arrive, then the result's usage where it has one. */
  readonly tokens: {
    readonly input: number;
    readonly output: number;
    readonly cache_read: number;
    readonly cache_creation: number;
  };
  /** The agent's first result, once it arrived; `cost_usd` is null when the agent reported none and no pricing was configured. */
  readonly result: {
    readonly cost_usd: number | null;
    readonly total_tokens: number;
    readonly text: string;
    readonly is_error: boolean;
  } | null;
  readonly exit: { readonly code: number | null; readonly signal: string | null; readonly reason: string } | null;
  readonly completed_at: number | null;
  readonly duration_ms: number | null;
  readonly cost_usd: number | null;
  readonly total_tokens: number | null;
  readonly summary: string | null;
  readonly error_message: string | null;
}

export function initialContext(input: SessionInput): SessionContext {
  const config = input.config ?? {};
  return {
    query: input.query,
    config,
    log_path: input.log_path,
    parent_session_id: input.parent_session_id ?? null,
    resume_claude_session_id: input.resume_claude_session_id ?? null,
    created_at: input.created_at,
    start_deadline: input.created_at + (config.start_timeout_ms ?? DEFAULT_SESSION_START_TIMEOUT_MS),
    last_activity_at: input.created_at,
    claude_session_id: null,
    agent: null,
    approvals: [],
    permission_denials: [],
    retrying: null,
    interrupt_requested: null,
    tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    result: null,
    exit: null,
    completed_at: null,
    duration_ms: null,
    cost_usd: null,
    total_tokens: null,
    summary: null,
    error_message: null,
  };
}
