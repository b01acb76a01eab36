/**
 * A tool call's request for approval as one event: what the session daemon's `requestApproval`
 * sends, and what `statewright mcp` sends through a serve's API for Claude's permission prompt. One
 * idempotency key per tool call (Claude's `tool_use_id`), so a repeated request, from either door,
 * returns the first approval and changes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { SessionApproval } from '../../machines/session/index.js';
import type { ApprovalRequest } from './session-daemon-api.js';

export interface ApprovalRequestEvent {
  readonly event: {
    type: 'APPROVAL_REQUESTED';
    approval_id: string;
    tool_name: string;
    tool_input: Record<string, unknown>;
    tool_use_id?: string;
  };
  readonly idempotencyKey: string;
  /** For the audit trail. */
  readonly reason: string;
}

export function approvalRequestEvent(request: ApprovalRequest): ApprovalRequestEvent {
  const approval_id = request.approval_id ?? randomUUID();
  return {
    event: {
      type: 'APPROVAL_REQUESTED',
      approval_id,
      tool_name: request.tool_name,
      tool_input: request.tool_input,
      ...(request.tool_use_id && { tool_use_id: request.tool_use_id }),
    },
    idempotencyKey: `approval-requested:${request.tool_use_id ?? approval_id}`,
    reason: `${request.tool_name} needs approval`,
  };
}

/** The approval a request made (or, repeated, made the first time): by tool call where it names one. */
export function approvalOf(
  approvals: readonly SessionApproval[],
  { event }: ApprovalRequestEvent,
): SessionApproval | undefined {
  return approvals.find((a) =>
    event.tool_use_id ? a.tool_use_id === event.tool_use_id : a.approval_id === event.approval_id,
  );
}
