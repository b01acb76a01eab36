/**
 * What a session daemon offers its callers: the seed's operations, their options, and the refusal
 * of an approval that is not pending. The daemon itself is session-daemon.ts.
 */
import type { SessionApproval, SessionConfig, SessionRecord } from '../../machines/session/index.js';
import type { AttachedService } from '../runtime/lifecycle-wiring.js';
import type { Runtime } from '../runtime/runtime.js';
import type { EventRecord } from '../stores/store.js';
import { StatewrightError } from '../errors.js';
import type { ActiveSession, AwaitingInput, TerminalSession } from './queries.js';
import type { SessionStatusChanged } from './status-changed.js';

export interface LaunchOptions {
  query: string;
  config?: SessionConfig;
  /** The session id (default: a new UUID). Launching again with the same id and query returns the existing session. */
  id?: string;
}

export interface ContinueOptions extends LaunchOptions {
  /**
   * How long to wait for the parent's agent to exit (an interrupted parent's agent may still be
   * writing its conversation) before the child resumes it; default 10 s, then the continue is refused.
   */
  parentExitTimeoutMs?: number;
}

/** Who asks and why: recorded in the audit trail. */
export interface RequestOptions {
  actor?: string;
  reason?: string;
  /** Overrides the key derived from the request. */
  idempotencyKey?: string;
}

export interface ApprovalRequest {
  tool_name: string;
  tool_input: Record<string, unknown>;
  /** Claude's tool call id: a repeated request for the same call returns the first approval. */
  tool_use_id?: string;
  /** Default: a new UUID. */
  approval_id?: string;
}

export interface SessionDaemon extends AttachedService {
  /** The runtime the daemon is attached to (its owner closes it). */
  readonly runtime: Runtime;
  launch(options: LaunchOptions): Promise<SessionRecord>;
  /**
   * A child session that resumes `parentId`'s Claude session with its configuration; the parent is
   * not changed. Refused with `ContinueSessionError` (and nothing started) unless the parent is a
   * completed or failed session with a Claude session id and a working directory; waits for the
   * parent's agent to exit first.
   */
  continue(parentId: string, options: ContinueOptions): Promise<SessionRecord>;
  /**
   * SIGINT to the agent and the session fails (seed transitions 6 and 7): on the agent's exit, with
   * the cost of the result it wrote on its way out (INTERRUPT_REQUESTED), or by INTERRUPT when it has
   * not exited within `interruptGraceMs`.
   */
  interrupt(sessionId: string, options?: RequestOptions): Promise<SessionRecord>;
  /** What the permission prompt tool calls when Claude wants to use a tool: running -> waiting_input. */
  requestApproval(
    sessionId: string,
    request: ApprovalRequest,
    options?: RequestOptions,
  ): Promise<{ session: SessionRecord; approval: SessionApproval }>;
  approve(
    sessionId: string,
    approvalId: string,
    options?: RequestOptions & { comment?: string },
  ): Promise<SessionRecord>;
  deny(sessionId: string, approvalId: string, options?: RequestOptions & { comment?: string }): Promise<SessionRecord>;
  respond(sessionId: string, approvalId: string, response: string, options?: RequestOptions): Promise<SessionRecord>;
  get(sessionId: string): Promise<SessionRecord>;
  /** The session's audit trail: every applied event with time, actor, reason and the statuses around it. */
  history(sessionId: string): Promise<EventRecord[]>;
  activeSessions(options?: { limit?: number }): Promise<ActiveSession[]>;
  terminalSessions(options?: { limit?: number }): Promise<TerminalSession[]>;
  sessionsAwaitingInput(options?: { limit?: number }): Promise<AwaitingInput[]>;
  /** Told of every status change once it is committed. Returns the unsubscribe function. */
  onStatusChanged(listener: (change: SessionStatusChanged) => void): () => void;
  /**
   * Graceful shutdown (hld's StopAllSessions): interrupts every active session this daemon's
   * runtime hosts as `interrupt` does (SIGINT, the session failed by its agent's exit with the cost
   * Claude reports on its way out; INTERRUPT after `interruptGraceMs`), waits up to `timeoutMs`
   * (default 10 s) in all for their agents to exit, SIGKILLs the rest, and detaches. The runtime and the store stay open. With `handOver`, it only detaches:
   * the sessions stay active and their agents run on, for the next host to adopt (the runtime is
   * then closed with `close({ handOver: true })`).
   */
  close(options?: { timeoutMs?: number; handOver?: boolean }): Promise<void>;
}

/** An approve, deny or respond for an approval that is not pending (already resolved, expired, unknown). */
export class ApprovalNotPendingError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'ApprovalNotPendingError';
  readonly sessionId: string;
  constructor(
    session: SessionRecord,
    readonly approvalId: string,
    readonly decision: string,
    override readonly cause: Error,
  ) {
    const approval = session.approvals.find((a) => a.approval_id === approvalId);
    const pending = session.approvals.filter((a) => a.status === 'pending').map((a) => a.approval_id);
    super(
      `Cannot mark approval ${approvalId} of session ${session.session_id} ${decision}: ` +
        (approval
          ? `it is already ${approval.status}${approval.resolved_at !== null ? ` (at ${new Date(approval.resolved_at).toISOString()})` : ''}`
          : `the session has no such approval`) +
        `; the session is ${session.status}, pending approvals: ${pending.length ? pending.join(', ') : 'none'}.`,
    );
    this.sessionId = session.session_id;
  }
}
