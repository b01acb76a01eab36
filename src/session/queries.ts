/**
 * The seed's "State Queries" over a list of stored sessions (as `runtime.list({ machine: 'session' })`
 * gives them): the same filters and orders as its SQL, as pure functions. Ties are broken by
 * session id so that the order is the same on every call.
 */
import {
  session,
  sessionRecord,
  type SessionApproval,
  type CompletedSession,
  type FailedSession,
  type RunningSession,
  type SessionRecord,
  type SessionRun,
  type StartingSession,
  type WaitingInputSession,
} from '../../machines/session/index.js';

export type ActiveSession = StartingSession | RunningSession | WaitingInputSession;
export type TerminalSession = CompletedSession | FailedSession;

const byId = (a: SessionRecord, b: SessionRecord) =>
  a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0;

const records = (runs: Iterable<SessionRun>) => [...runs].map(sessionRecord);

export const isActiveSession = (s: SessionRecord): s is ActiveSession => !session.isTerminal(s.status);
export const isTerminalSession = (s: SessionRecord): s is TerminalSession => session.isTerminal(s.status);

/** `WHERE status IN ('starting', 'running', 'waiting_input') ORDER BY last_activity_at DESC` */
export function activeSessions(runs: Iterable<SessionRun>): ActiveSession[] {
  return records(runs)
    .filter(isActiveSession)
    .sort((a, b) => b.last_activity_at - a.last_activity_at || byId(a, b));
}

/** `WHERE status IN ('completed', 'failed') ORDER BY completed_at DESC` */
export function terminalSessions(runs: Iterable<SessionRun>): TerminalSession[] {
  return records(runs)
    .filter(isTerminalSession)
    .sort((a, b) => b.completed_at - a.completed_at || byId(a, b));
}

export interface AwaitingInput {
  readonly session: WaitingInputSession;
  /** Its pending approvals, oldest request first (tool_name, approval_id and the rest). */
  readonly approvals: readonly SessionApproval[];
}

/**
 * Sessions in waiting_input joined with their pending approvals (the seed joins
 * conversation_events with `approval_status = 'pending'`, so a session without one is not
 * listed). The seed gives no order; the session whose oldest request has waited longest comes first.
 */
export function sessionsAwaitingInput(runs: Iterable<SessionRun>): AwaitingInput[] {
  const out: AwaitingInput[] = [];
  for (const session of records(runs)) {
    if (session.status !== 'waiting_input') continue;
    const approvals = session.approvals
      .filter((a) => a.status === 'pending')
      .sort((a, b) => a.requested_at - b.requested_at);
    if (approvals.length) out.push({ session, approvals });
  }
  return out.sort((a, b) => a.approvals[0]!.requested_at - b.approvals[0]!.requested_at || byId(a.session, b.session));
}

export interface InactiveSession {
  readonly session: ActiveSession;
  readonly inactive_ms: number;
}

/** Active sessions with no activity for longer than `limitMs` at `now`, longest quiet first. */
export function inactiveSessions(runs: Iterable<SessionRun>, now: number, limitMs: number): InactiveSession[] {
  return activeSessions(runs)
    .map((session) => ({ session, inactive_ms: now - session.last_activity_at }))
    .filter((s) => s.inactive_ms > limitMs)
    .sort((a, b) => b.inactive_ms - a.inactive_ms || byId(a.session, b.session));
}

// ---------------------------------------------------------------------------------------------
// The same queries on a runtime, read through the session's index keys (`sessionIndexes`): on
// SQLite an index walk in the seed's order, on other stores a scan with the same answer.

/** A run as the runtime hands it out (its snapshot untyped), read as a session; `sessionRecord` checks its status. */
export const asSessionRun = (run: { runId: string; snapshot: unknown }): SessionRun => run as SessionRun;

/** Anything with the runtime's `listByIndex`. */
export interface IndexedRuns {
  listByIndex(
    machine: string,
    key: string,
    options?: { limit?: number },
  ): Promise<Array<{ runId: string; snapshot: unknown }>>;
}

export async function listActiveSessions(
  runtime: IndexedRuns,
  options: { limit?: number } = {},
): Promise<ActiveSession[]> {
  return (await runtime.listByIndex('session', 'active_by_activity', options)).map((r) =>
    sessionRecord(asSessionRun(r)),
  ) as ActiveSession[];
}

export async function listTerminalSessions(
  runtime: IndexedRuns,
  options: { limit?: number } = {},
): Promise<TerminalSession[]> {
  return (await runtime.listByIndex('session', 'terminal_by_completion', options)).map((r) =>
    sessionRecord(asSessionRun(r)),
  ) as TerminalSession[];
}

export async function listSessionsAwaitingInput(
  runtime: IndexedRuns,
  options: { limit?: number } = {},
): Promise<AwaitingInput[]> {
  return (await runtime.listByIndex('session', 'awaiting_input', options)).map((run) => {
    const session = sessionRecord(asSessionRun(run)) as WaitingInputSession;
    const approvals = session.approvals
      .filter((a) => a.status === 'pending')
      .sort((a, b) => a.requested_at - b.requested_at);
    return { session, approvals };
  });
}
