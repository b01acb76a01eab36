/**
 * The session lifecycle of the HumanLayer daemon (hld): one Claude Code session, from launch to
 * completion (seed: hld-session-state-machine.txt). Its machine, record, status API, recovery and
 * continuation; the parts live in ./session/, one concept each.
 */
export { sessionMachine } from './session/machine.js';
export { sessionConfigSchema, sessionInputSchema, parseSessionInput, DEFAULT_SESSION_START_TIMEOUT_MS, type SessionConfig, type SessionInput } from './session/config.js';
export type { SessionApproval, SessionApprovalStatus, SessionContext } from './session/context.js';
export { SESSION_APPROVAL_DECISIONS, SESSION_ERRORS, type SessionEvent, type SessionEventOf } from './session/events.js';
export { nextApprovalDeadline, pendingSessionApprovalIds, summarizeSession } from './session/updates.js';
export {
  SESSION_AGENT_INTERRUPT,
  SESSION_DECISIONS_ENV,
  sessionAgentInput,
  sessionClaudeCommand,
  sessionDecisionsPath,
  type SessionAgentInput,
  type SessionDeadlineInput,
} from './session/agent.js';
export { session, SessionTransitionError, type SessionStatus, type TerminalSessionStatus } from './session/status.js';
export {
  sessionRecord,
  type CompletedSession,
  type FailedSession,
  type RunningSession,
  type SessionRecord,
  type SessionRecordOf,
  type SessionRun,
  type StartingSession,
  type WaitingInputSession,
} from './session/record.js';
export { sessionIndexes } from './session/indexes.js';
export { recoverSession } from './session/recover.js';
export { CONTINUABLE_SESSION_STATUSES, ContinueSessionError, childSessionInput, type ContinueSessionOptions } from './session/continue.js';
