/**
 * The session lifecycle of the HumanLayer daemon (hld): one Claude Code session, from launch to
 * completion (seed: hld-session-state-machine.txt). What its users import, and its entry in the
 * registry. Every part is here: machine, context, events, guards, recover, explain, and beside
 * them config (input), agent (its command line and actor input), updates (the record's changes),
 * status (the seed's status API), record, indexes (the seed's queries) and continue (child sessions).
 */
import type { Lifecycle } from '../lifecycle.js';
import { sessionInputSchema } from './config.js';
import { sessionEventSchemas } from './events.js';
import { explainSession, sessionStatusNote } from './explain.js';
import { sessionIndexes } from './indexes.js';
import { sessionMachine } from './machine.js';
import { recoverSession } from './recover.js';
import { sessionTesting } from './test-events.js';

export { sessionMachine } from './machine.js';
export {
  sessionConfigSchema,
  sessionInputSchema,
  parseSessionInput,
  DEFAULT_SESSION_START_TIMEOUT_MS,
  DEFAULT_SESSION_INTERRUPT_GRACE_MS,
  type SessionConfig,
  type SessionInput,
} from './config.js';
export type {
  SessionApproval,
  SessionApprovalStatus,
  SessionAutoApproval,
  SessionContext,
  SessionPermissionDenial,
} from './context.js';
export { SESSION_APPROVAL_DECISIONS, SESSION_ERRORS, type SessionEvent, type SessionEventOf } from './events.js';
export {
  autoApprovalRule,
  nextApprovalDeadline,
  pendingSessionApprovalIds,
  SESSION_EDIT_TOOLS,
  summarizeSession,
} from './updates.js';
export {
  SESSION_AGENT_INTERRUPT,
  SESSION_DECISIONS_ENV,
  SESSION_ID_ENV,
  sessionAgentInput,
  sessionClaudeCommand,
  sessionDecisionsPath,
  type SessionAgentInput,
  type SessionDeadlineInput,
} from './agent.js';
export { session, SessionTransitionError, type SessionStatus, type TerminalSessionStatus } from './status.js';
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
} from './record.js';
export { sessionIndexes } from './indexes.js';
export { recoverSession } from './recover.js';
export {
  CONTINUABLE_SESSION_STATUSES,
  ContinueSessionError,
  childSessionInput,
  type ContinueSessionOptions,
} from './continue.js';

export const sessionDefinition = {
  machine: sessionMachine,
  version: 1,
  strict: true,
  summary: 'hld Claude Code session: 5 states, 7 status transitions, approvals, start timeout, orphan recovery',
  recover: recoverSession,
  indexes: sessionIndexes,
  explain: explainSession,
  statusNote: sessionStatusNote,
  // When it was created and where its log goes are the host's to fill in (sessionStartInput).
  input: sessionInputSchema.omit({ created_at: true, log_path: true }),
  events: Object.keys(sessionEventSchemas),
  // The agent, its hooks, the start timer and recovery send the rest.
  personEvents: ['INTERRUPT', 'APPROVAL_RESOLVED'],
  ...sessionTesting,
} satisfies Lifecycle;
