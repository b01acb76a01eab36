/**
 * What Claude Code's permission prompt tool answers, read off the session: a text block holding
 * `{"behavior":"allow","updatedInput":{...}}` or `{"behavior":"deny","message":"..."}` (what
 * Claude 2.1.328 accepts; the deny message goes back to the model as an error tool_result). No
 * answer while the approval is pending in a session that is still active.
 */
import type { SessionApproval, SessionRecord } from '../session/index.js';

export type ClaudePermissionAnswer =
  | { readonly behavior: 'allow'; readonly updatedInput: Readonly<Record<string, unknown>> }
  | { readonly behavior: 'deny'; readonly message: string };

interface SessionView {
  readonly runId: string;
  readonly status: string;
  readonly state: string;
  readonly context: Pick<SessionRecord, 'approvals' | 'config'>;
}

export function permissionAnswer(session: SessionView, approval: SessionApproval): ClaudePermissionAnswer | undefined {
  const who = `in statewright session ${session.runId}`;
  switch (approval.status) {
    case 'approved':
      return { behavior: 'allow', updatedInput: approval.tool_input };
    case 'denied':
      return {
        behavior: 'deny',
        message: approval.comment
          ? `A person denied ${approval.tool_name} ${who}: ${approval.comment}`
          : `A person denied ${approval.tool_name} ${who}. Do not try it again this way; ask or take another path.`,
      };
    case 'responded':
      // A response instead of a yes or no: the call does not run, and the model reads the person's words.
      return {
        behavior: 'deny',
        message: `A person answered instead of approving ${approval.tool_name} ${who}: ${approval.comment ?? ''}`,
      };
    case 'expired':
      return {
        behavior: 'deny',
        message: `Nobody decided on ${approval.tool_name} within the session's approval timeout (${session.context.config.approval_timeout_ms} ms) ${who}: denied.`,
      };
    case 'pending':
      if (session.status === 'active') return undefined;
      return {
        behavior: 'deny',
        message: `Statewright session ${session.runId} ended (${session.state}) before anyone decided on ${approval.tool_name}: denied.`,
      };
  }
}
