import { session, type SessionStatus } from '../../machines/session/index.js';

/** The seed's event for every status change, published after the change is committed. */
export interface SessionStatusChanged {
  readonly type: 'session_status_changed';
  readonly session_id: string;
  readonly old_status: SessionStatus;
  readonly new_status: SessionStatus;
}

/**
 * The event for one committed step of a session, or undefined when its status did not change
 * (an event that only updated the record: tokens, the pid, a second approval).
 */
export function sessionStatusChanged(
  sessionId: string,
  before: { value: unknown },
  after: { value: unknown },
): SessionStatusChanged | undefined {
  const [old_status, new_status] = [before.value, after.value];
  if (!session.isState(old_status) || !session.isState(new_status)) {
    throw new TypeError(
      `Run '${sessionId}' is not a session: states ${JSON.stringify(old_status)} -> ${JSON.stringify(new_status)}`,
    );
  }
  if (old_status === new_status) return undefined;
  return { type: 'session_status_changed', session_id: sessionId, old_status, new_status };
}
