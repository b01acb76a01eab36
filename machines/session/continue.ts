/**
 * Continuing a session (hld's ContinueSession): the input of a child session that resumes its
 * parent's Claude conversation. Pure: the daemon starts the child with it.
 *
 * hld's rules, where the seed allows them: the parent has finished, reported a Claude session id
 * and ran in a known working directory; the child inherits its configuration but `max_turns`, and
 * runs in the parent's folder. hld also continues a running parent by interrupting it first; the
 * seed keeps a parent unaffected by its child, so here the caller interrupts it, as a separate step.
 */
import { parseSessionInput, type SessionConfig, type SessionInput } from './config.js';
import type { SessionRecord } from './record.js';
import type { SessionStatus } from './status.js';
import { StatewrightError } from '../../src/errors.js';

/** Raised when a session cannot be continued; says why and what to do. Nothing has changed. */
export class ContinueSessionError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'ContinueSessionError';
  constructor(
    readonly sessionId: string,
    message: string,
  ) {
    super(message);
  }
}

/** Statuses a session can be continued from (hld's interrupted is the seed's failed). */
export const CONTINUABLE_SESSION_STATUSES: readonly SessionStatus[] = ['completed', 'failed'];

/** What to do about a parent that is still active, by its status. */
const UNTIL_CONTINUABLE: Partial<Record<SessionStatus, string>> = {
  starting: 'wait for it to finish, or interrupt it first',
  running: 'wait for it to finish, or interrupt it first',
  waiting_input: 'resolve its pending approvals, or interrupt it first',
};

export interface ContinueSessionOptions {
  query: string;
  created_at: number;
  log_path: string;
  /** Overrides of the inherited configuration; a field left out or undefined is inherited. */
  config?: SessionConfig;
}

/**
 * The input of a child session that continues `parent`: it starts in `starting` with
 * `parent_session_id`, inherits the parent's configuration (but not `max_turns`, as in hld) and
 * resumes the parent's Claude session. The parent is only read, never changed.
 */
export function childSessionInput(parent: SessionRecord, options: ContinueSessionOptions): SessionInput {
  const workingDir = checkContinuable(parent, options.config);
  const { max_turns: _notInherited, ...inherited } = parent.config;
  return parseSessionInput({
    query: options.query,
    created_at: options.created_at,
    log_path: options.log_path,
    config: { ...inherited, ...givenFields(options.config ?? {}), working_dir: workingDir },
    parent_session_id: parent.session_id,
    resume_claude_session_id: parent.claude_session_id,
  });
}

/** hld's checks, in its order; returns the folder the child must run in. */
function checkContinuable(parent: SessionRecord, overrides: SessionConfig = {}): string {
  const id = parent.session_id;
  if (!CONTINUABLE_SESSION_STATUSES.includes(parent.status)) {
    const todo = UNTIL_CONTINUABLE[parent.status];
    throw new ContinueSessionError(
      id,
      `Cannot continue session ${id} with status ${parent.status} (must be ${CONTINUABLE_SESSION_STATUSES.join(' or ')}${todo ? `; ${todo}` : ''})`,
    );
  }
  if (!parent.claude_session_id) {
    throw new ContinueSessionError(
      id,
      `Cannot continue session ${id}: it never reported a Claude session ID, so there is no conversation to resume; start a new session instead`,
    );
  }
  // Claude keeps a conversation under the folder it ran in, and `--resume` only finds it there.
  const workingDir = parent.config.working_dir;
  if (!workingDir) {
    throw new ContinueSessionError(
      id,
      `Cannot continue session ${id}: parent session missing working_dir (cannot resume session without working directory). ` +
        `It ran in whatever folder the daemon was in, and Claude keeps its conversation under that folder; start a new session with config.working_dir instead`,
    );
  }
  if (overrides.working_dir !== undefined && overrides.working_dir !== workingDir) {
    throw new ContinueSessionError(
      id,
      `Cannot continue session ${id} in ${overrides.working_dir}: it ran in ${workingDir}, where Claude keeps its conversation, so the child must run there to resume it; ` +
        `leave config.working_dir out (the child inherits it), or start a new session in ${overrides.working_dir}`,
    );
  }
  return workingDir;
}

/** hld overrides a setting "only if explicitly provided": an undefined field keeps the parent's. */
function givenFields(config: SessionConfig): SessionConfig {
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
}
