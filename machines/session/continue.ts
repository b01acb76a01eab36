/**
 * Continuing a session (hld's ContinueSession): the input of a child session that resumes its
 * parent's Claude conversation. Pure: the daemon starts the child with it.
 */
import { parseSessionInput, type SessionConfig, type SessionInput } from './config.js';
import type { SessionRecord } from './record.js';
import type { SessionStatus } from './status.js';

/** Raised when a session cannot be continued; says why and what to do. */
export class ContinueSessionError extends Error {
  override readonly name = 'ContinueSessionError';
  constructor(
    readonly sessionId: string,
    message: string,
  ) {
    super(message);
  }
}

/** Statuses a session can be continued from. A running session must be interrupted first. */
export const CONTINUABLE_SESSION_STATUSES: readonly SessionStatus[] = ['completed', 'failed'];

export interface ContinueSessionOptions {
  query: string;
  created_at: number;
  log_path: string;
  /** Overrides of the inherited configuration. */
  config?: SessionConfig;
}

/**
 * The input of a child session that continues `parent`: it starts in `starting` with
 * `parent_session_id`, inherits the parent's configuration (but not `max_turns`, as in hld) and
 * resumes the parent's Claude session. The parent is only read, never changed.
 */
export function childSessionInput(parent: SessionRecord, options: ContinueSessionOptions): SessionInput {
  if (!CONTINUABLE_SESSION_STATUSES.includes(parent.status)) {
    throw new ContinueSessionError(
      parent.session_id,
      `Cannot continue session ${parent.session_id} with status ${parent.status} (must be ${CONTINUABLE_SESSION_STATUSES.join(' or ')}${
        parent.status === 'running' || parent.status === 'waiting_input' ? '; interrupt it first' : ''
      })`,
    );
  }
  if (!parent.claude_session_id) {
    throw new ContinueSessionError(
      parent.session_id,
      `Cannot continue session ${parent.session_id}: it never reported a Claude session ID, so there is no conversation to resume; start a new session instead`,
    );
  }
  const { max_turns: _notInherited, ...inherited } = parent.config;
  return parseSessionInput({
    query: options.query,
    created_at: options.created_at,
    log_path: options.log_path,
    config: { ...inherited, ...options.config },
    parent_session_id: parent.session_id,
    resume_claude_session_id: parent.claude_session_id,
  });
}
