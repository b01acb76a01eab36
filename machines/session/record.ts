/**
 * Sessions as records: what the queries and the daemon's API hand out. A record is the context in
 * the seed's field names, with its id and status, typed by status.
 */
import type { SessionContext } from './context.js';
import { session, type SessionStatus } from './status.js';

/** What each status guarantees beyond the context: there these fields are not nullable. Indexed by every status of the machine. */
interface Guarantees {
  starting: {};
  running: { readonly claude_session_id: string };
  waiting_input: { readonly claude_session_id: string };
  completed: {
    readonly claude_session_id: string;
    readonly completed_at: number;
    readonly duration_ms: number;
    /** Null when the agent reported no cost and the session has no pricing to derive one. */
    readonly cost_usd: number | null;
    readonly total_tokens: number;
    readonly summary: string;
  };
  failed: { readonly completed_at: number; readonly duration_ms: number; readonly error_message: string };
}

/** The record of a session in status `S`. */
export type SessionRecordOf<S extends SessionStatus> = SessionContext &
  Guarantees[S] & { readonly session_id: string; readonly status: S };
/** A session's record, typed by status: the fields a status guarantees are not nullable. */
export type SessionRecord = { [S in SessionStatus]: SessionRecordOf<S> }[SessionStatus];

export type StartingSession = SessionRecordOf<'starting'>;
export type RunningSession = SessionRecordOf<'running'>;
export type WaitingInputSession = SessionRecordOf<'waiting_input'>;
export type CompletedSession = SessionRecordOf<'completed'>;
export type FailedSession = SessionRecordOf<'failed'>;

/** A stored session run, as the runtime lists it (the same shape its recovery hook receives). */
export interface SessionRun {
  readonly runId: string;
  readonly snapshot: { readonly value: unknown; readonly context: SessionContext };
}

export function sessionRecord(run: SessionRun): SessionRecord {
  const status = run.snapshot.value;
  if (!session.isState(status)) {
    throw new TypeError(
      `Run '${run.runId}' is not a session: its state ${JSON.stringify(status)} is none of ${session.states.join(', ')}`,
    );
  }
  return { ...run.snapshot.context, session_id: run.runId, status } as SessionRecord;
}
