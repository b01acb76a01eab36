/** The session lifecycle's API on top of the runtime (`statewright/session`). */
export {
  sessionLifecycle,
  ApprovalNotPendingError,
  DEFAULT_INACTIVITY_LIMIT_MS,
  type SessionDaemon,
  type SessionLifecycleOptions,
  type LaunchOptions,
  type ContinueOptions,
  type ApprovalRequest,
  type RequestOptions,
} from './session-daemon.js';
export {
  activeSessions,
  terminalSessions,
  sessionsAwaitingInput,
  inactiveSessions,
  listActiveSessions,
  listTerminalSessions,
  listSessionsAwaitingInput,
  type ActiveSession,
  type TerminalSession,
  type AwaitingInput,
} from './queries.js';
export { DEFAULT_PARENT_EXIT_TIMEOUT_MS } from './continue-parent.js';
export { sessionStartInput } from './session-start-input.js';
export type { SessionStatusChanged } from './status-changed.js';
export { startActivityMonitor, type ActivityMonitor, type InactivityWarning } from './activity-monitor.js';
export {
  ContinueSessionError,
  SESSION_ERRORS,
  SESSION_DECISIONS_ENV,
  SESSION_ID_ENV,
  type SessionRecord,
  type SessionApproval,
  type SessionConfig,
  type SessionStatus,
} from '../../machines/session/index.js';
export {
  APPROVE_TOOL,
  PERMISSION_PROMPT_TOOL,
  SERVER_DIR_ENV,
  SERVER_ENV,
  STATEWRIGHT_MCP_SERVER,
  TOKEN_ENV,
  permissionPromptEnv,
  withPermissionPrompt,
  type PermissionPrompt,
} from './permission-prompt.js';
export { adoptingRecordedAgents } from './adopt-recorded-agent.js';
export { approvalOf, approvalRequestEvent, type ApprovalRequestEvent } from './approval-request.js';
