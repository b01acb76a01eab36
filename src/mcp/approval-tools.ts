/**
 * Claude Code's permission prompt tool, `approve` (Claude names it `mcp__statewright__approve`):
 * Claude calls it with `{tool_name, input, tool_use_id}` before a tool runs and waits as long as it
 * takes. The call is recorded on the statewright session (running -> waiting_input, or approved at
 * once by the session's auto-approve rules), a person decides in the live view, the CLI or the API,
 * and the tool answers allow or deny (approval-answer.ts); the session's approval timeout denies.
 * The wait follows the session's committed steps (the runtime's listeners, or the serve's step
 * stream), never a polling timer. A repeated call for the same tool_use_id finds the same approval.
 * The call outlives a serve that stops or crashes meanwhile: it waits for the next one (decide).
 */
import { z } from 'zod';
// Each from its own module, not src/session/index.js (the session daemon, its actors): loaded
// before `initialize` is answered, and an agent waits for that only so long.
import type { SessionApproval, SessionRecord } from '../session/index.js';
import { approvalOf, approvalRequestEvent } from '../session/approval-request.js';
import { APPROVE_TOOL } from '../session/permission-prompt.js';
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

/** How long past the approval's own expiry a serve still away is waited for, its own denial first. */
const AWAY_GRACE_MS = 5_000;

export function approvalTools(access: RunAccess, sessionId: string, approvalTimeoutMs?: number): ToolSet {
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
        approvalTimeoutMs,
      );
      return textResult(JSON.stringify(answer));
    },
  };
  return { tools: async () => [tool], close: () => access.close() };
}

/**
 * The answer while the serve is away: the call is held open, the request sent again and the
 * decision followed at the next serve (the same idempotency key: one approval, one decision), until
 * the approval's own timeout (its `expires_at`, or the session's timeout before it is recorded) has
 * passed with no serve to say so: then it is denied as the timeout would have. Never an error for
 * an outage: the model would take it for a failed tool and run on without the person.
 */
async function decide(
  access: RunAccess,
  sessionId: string,
  request: { tool_name: string; tool_input: Record<string, unknown>; tool_use_id?: string },
  signal: AbortSignal,
  approvalTimeoutMs: number | undefined,
): Promise<ClaudePermissionAnswer> {
  const asked = approvalRequestEvent(request);
  const expired = new AbortController();
  const bounded = AbortSignal.any([signal, expired.signal]);
  let timer: NodeJS.Timeout | undefined;
  const expireAt = (at: number | null | undefined) => {
    clearTimeout(timer);
    if (at !== null && at !== undefined)
      timer = setTimeout(() => expired.abort(), Math.max(0, at - Date.now()) + AWAY_GRACE_MS);
  };
  expireAt(approvalTimeoutMs === undefined ? undefined : Date.now() + approvalTimeoutMs);
  const awayAnswer = (): ClaudePermissionAnswer => ({
    behavior: 'deny',
    message: `Nobody decided on ${request.tool_name} within the approval timeout of statewright session ${sessionId}, while the statewright serve hosting it was away: denied.`,
  });
  try {
    const session = await access.whileAway(
      () =>
        access.send(sessionId, asked.event, {
          actor: 'agent',
          reason: asked.reason,
          idempotencyKey: asked.idempotencyKey,
        }),
      bounded,
    );
    const approvalIn = (run: RunJson): SessionApproval => {
      if (run.machine !== 'session') throw new NotASessionError(run.runId, run.machine);
      return approvalOf((run.context as SessionRecord).approvals, asked)!;
    };
    const answerOf = (run: RunJson) => permissionAnswer(run as never, approvalIn(run));
    const now = answerOf(session);
    if (now) return now;
    expireAt(approvalIn(session).expires_at);
    return await new Promise<ClaudePermissionAnswer>((resolve, reject) => {
      const settle = (how: () => void) => {
        stop();
        bounded.removeEventListener('abort', cancelled);
        how();
      };
      // Claude gave up on the call (or the connection closed): stop waiting, nobody reads the answer.
      // Or the approval's time ran out while the serve was away: denied, as its timeout would.
      const cancelled = () =>
        settle(() =>
          signal.aborted
            ? reject(signal.reason instanceof Error ? signal.reason : new Error('the call was cancelled'))
            : resolve(awayAnswer()),
        );
      const stop = access.watch(
        sessionId,
        session.seq,
        (run) => {
          const answer = answerOf(run);
          if (answer) settle(() => resolve(answer));
        },
        (error) => settle(() => reject(error)),
      );
      if (bounded.aborted) cancelled();
      else bounded.addEventListener('abort', cancelled, { once: true });
    });
  } catch (error) {
    if (expired.signal.aborted && !signal.aborted) return awayAnswer();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
