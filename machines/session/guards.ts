/**
 * The session's guards, named in the machine's `setup()`. Each is a metadata guard (a zod schema,
 * so a refusal names the bad fields) or, where an event chooses between targets, a decision that
 * the last branch's metadata guard backs.
 */
import { z } from 'zod';
import { metadataGuard } from '../../src/graph/metadata-guard.js';
import type { SessionContext } from './context.js';
import { sessionEventSchemas as events } from './events.js';
import { autoApprovalRule, pendingSessionApprovalIds } from './updates.js';

/** Adds the pending approvals to what a schema sees, so it can refuse an id that is not pending. */
const withPending = (event: object, context: SessionContext | undefined) => ({
  ...event,
  pending_approvals: context ? pendingSessionApprovalIds(context) : [],
});
const pendingList = (ids: readonly string[]) => (ids.length ? ids.join(', ') : 'none');
const mustBePending = (value: { approval_id: string; pending_approvals: string[] }, ctx: z.RefinementCtx) => {
  if (!value.pending_approvals.includes(value.approval_id)) {
    ctx.addIssue({
      code: 'custom',
      path: ['approval_id'],
      message: `'${value.approval_id}' is not a pending approval of this session (pending: ${pendingList(value.pending_approvals)})`,
    });
  }
};
const pendingApprovals = { pending_approvals: z.array(z.string()) };

const agentExited = metadataGuard(events['agent.exited'], 'failed');
const interrupted = metadataGuard(events.INTERRUPT, 'failed');
const interruptRequested = metadataGuard(events.INTERRUPT_REQUESTED, 'running');
const approvalRequested = metadataGuard(
  events.APPROVAL_REQUESTED.extend({ known: z.array(z.string()) }).superRefine((value, ctx) => {
    if (value.known.includes(value.approval_id)) {
      ctx.addIssue({
        code: 'custom',
        path: ['approval_id'],
        message: `'${value.approval_id}' was already requested in this session; approval ids are unique`,
      });
    }
  }),
  'waiting_input',
  (event, context: SessionContext | undefined) => ({
    ...event,
    known: context?.approvals.map((a) => a.approval_id) ?? [],
  }),
);
// Backs the last branch of APPROVAL_RESOLVED: the earlier branch takes every case where others stay pending.
const resolvesLastPending = metadataGuard(
  events.APPROVAL_RESOLVED.extend(pendingApprovals).superRefine(mustBePending),
  'running',
  withPending,
);

const approvalTimedOut = metadataGuard(
  events.APPROVAL_TIMEOUT.extend(pendingApprovals).superRefine(mustBePending),
  'failed',
  withPending,
);

type GuardArgs = { context: SessionContext; event: any };

export const sessionGuards = {
  agentSpawned: metadataGuard(events['agent.spawned'], 'starting'),
  sessionIdReceived: metadataGuard(events['agent.session'], 'running'),
  assistantMessage: metadataGuard(events['agent.assistant'], 'running'),
  resultReported: metadataGuard(events['agent.result'], 'running'),
  permissionDenied: metadataGuard(events['agent.permission_denied'], 'running'),
  agentRetrying: metadataGuard(events['agent.retrying'], 'running'),
  agentExited,
  startTimedOut: metadataGuard(events.START_TIMEOUT, 'failed'),
  interrupted,
  /**
   * A first interrupt of a session whose agent was spawned: SIGINT and the grace, not the failure
   * yet. With no agent recorded there is no exit to wait for: INTERRUPT fails the session at once.
   */
  interruptAsked: ({ context, event }: GuardArgs) =>
    interrupted({ event }) && !context.interrupt_requested && context.agent !== null,
  /** Once per session: a second request adds nothing (the agent already has its SIGINT). */
  interruptRequested: ({ context, event }: GuardArgs) => interruptRequested({ event }) && !context.interrupt_requested,
  /** The agent exited after its approval timed out: failed as the seed says, even after a successful result. */
  exitedAfterApprovalTimeout: ({ context, event }: GuardArgs) =>
    agentExited({ event }) && context.interrupt_requested?.approval_id !== undefined,
  /** The agent exited after an interrupt was requested: the session fails as interrupted. */
  exitedAfterInterrupt: ({ context, event }: GuardArgs) => agentExited({ event }) && !!context.interrupt_requested,
  orphaned: metadataGuard(events.SESSION_ORPHANED, 'failed'),
  approvalRequested,
  /** A valid request that a config rule approves without asking (hld's auto-approve): the status stays. */
  autoApproved: ({ context, event }: GuardArgs) =>
    approvalRequested({ context, event }) && autoApprovalRule(context, event) !== undefined,
  resolvesLastPending,
  approvalTimedOut,
  /**
   * An approval timed out while the agent runs: it gets the deny and the session fails on its exit
   * (or the grace's end). With no agent recorded there is nobody to tell: it fails at once.
   */
  approvalExpiresForAgent: ({ context, event }: GuardArgs) =>
    approvalTimedOut({ context, event }) && context.agent !== null,
  /** The same while other approvals are still pending: the session keeps waiting for them. */
  approvalExpiresOtherPending: ({ context, event }: GuardArgs) =>
    approvalTimedOut({ context, event }) && context.agent !== null && pendingSessionApprovalIds(context).length > 1,
  /**
   * Claude exited 0 after a result that is not an error: the session completed. An agent adopted
   * from another host (a hand-over) is not the adopter's child, so its exit status is unknown (no
   * code, no signal): then its successful result decides.
   */
  exitedWithResult: ({ context, event }: GuardArgs) =>
    agentExited({ event }) &&
    (event.code === 0 || (event.code == null && event.signal == null)) &&
    context.result !== null &&
    !context.result.is_error,
  /** An approval is resolved while others are still pending: the session keeps waiting. */
  resolvesOtherPending: ({ context, event }: GuardArgs) =>
    resolvesLastPending({ context, event }) && pendingSessionApprovalIds(context).length > 1,
};
