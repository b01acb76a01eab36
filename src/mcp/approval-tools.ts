/**
 * Claude Code's permission prompt tool, `approve` (Claude names it `mcp__statewright__approve`):
 * Claude calls it with `{tool_name, input, tool_use_id}` before a tool runs and waits as long as it
 * takes. The call is recorded on the statewright session (running -> waiting_input, or approved at
 * once by the session's auto-approve rules), a person decides in the live view, the CLI or the API,
 * and the tool answers allow or deny (approval-answer.ts); the session's approval timeout denies.
 * The wait follows the session's committed steps (the runtime's listeners, or the serve's step
 * stream), never a timer. A repeated call for the same tool_use_id finds the same approval.
 */
import { z } from 'zod';
import {
  APPROVE_TOOL,
  approvalOf,
  approvalRequestEvent,
  type SessionApproval,
  type SessionRecord,
} from '../session/index.js';
import type { RunJson } from '../serve/run-json.js';
import { inputSchemaOf, parseArguments, textResult, type McpTool, type ToolSet } from './mcp-tool.js';
import { permissionAnswer, type ClaudePermissionAnswer } from './approval-answer.js';
import type { RunAccess } from './run-access.js';
import { NotASessionError } from './mcp-errors.js';

const approveArguments = z.object({
  tool_name: z.string().min(1).describe('the tool Claude wants to run'),
  input: z.record(z.string(), z.unknown()).describe("the tool's input"),
  tool_use_id: z.string().min(1).optional().describe("Claude's id of the tool call"),
});

export function approvalTools(access: RunAccess, sessionId: string): ToolSet {
  const tool: McpTool = {
    name: APPROVE_TOOL,
    description: `Asks a person (statewright session ${sessionId}) whether a tool call may run, and waits for the decision. Claude Code's permission prompt tool.`,
    inputSchema: inputSchemaOf(approveArguments),
    async call(args, signal) {
      const { tool_name, input, tool_use_id } = parseArguments(APPROVE_TOOL, approveArguments, args);
      const answer = await decide(
        access,
        sessionId,
        { tool_name, tool_input: input, ...(tool_use_id && { tool_use_id }) },
        signal,
      );
      return textResult(JSON.stringify(answer));
    },
  };
  return { tools: async () => [tool], close: () => access.close() };
}

async function decide(
  access: RunAccess,
  sessionId: string,
  request: { tool_name: string; tool_input: Record<string, unknown>; tool_use_id?: string },
  signal: AbortSignal,
): Promise<ClaudePermissionAnswer> {
  const asked = approvalRequestEvent(request);
  const session = await access.send(sessionId, asked.event, {
    actor: 'agent',
    reason: asked.reason,
    idempotencyKey: asked.idempotencyKey,
  });
  const approvalIn = (run: RunJson): SessionApproval => {
    if (run.machine !== 'session') throw new NotASessionError(run.runId, run.machine);
    return approvalOf((run.context as SessionRecord).approvals, asked)!;
  };
  const answerOf = (run: RunJson) => permissionAnswer(run as never, approvalIn(run));
  const now = answerOf(session);
  if (now) return now;
  return new Promise<ClaudePermissionAnswer>((resolve, reject) => {
    const settle = (how: () => void) => {
      stop();
      signal.removeEventListener('abort', cancelled);
      how();
    };
    // Claude gave up on the call (or the connection closed): stop waiting, nobody reads the answer.
    const cancelled = () =>
      settle(() => reject(signal.reason instanceof Error ? signal.reason : new Error('the call was cancelled')));
    const stop = access.watch(
      sessionId,
      session.seq,
      (run) => {
        const answer = answerOf(run);
        if (answer) settle(() => resolve(answer));
      },
      (error) => settle(() => reject(error)),
    );
    if (signal.aborted) cancelled();
    else signal.addEventListener('abort', cancelled, { once: true });
  });
}
