/**
 * One line of an agent's output, read on its own. Two formats, told apart by their `type`:
 *
 * - Claude Code's `--output-format stream-json` (and the Agent SDK's message log): `system`/`init`
 *   carries the session id, `assistant` lines carry text and token usage (one line per content
 *   block: the lines of one message share its `message.id` and repeat its usage), and the `result`
 *   line carries the authoritative cost and `permission_denials` (every tool call Claude refused);
 *   `system`/`permission_denied` reports one refusal as it happens (a deny rule, a headless
 *   auto-deny: a session without a permission prompt tool). With `--include-partial-messages`,
 *   `stream_event` lines carry each message's start and final usage; a result after `--resume`
 *   counts the parent conversation, so its cost and usage are taken from the run's own figures;
 *   `system`/`api_retry` says Claude is retrying a model call; a `<synthetic>` assistant message is
 *   Claude's own (an API error). What these lines hold is in claude-lines.ts.
 * - Codex's `codex exec --json`: `thread.started` carries the thread id (the session id),
 *   `item.completed` of an `agent_message` is a message, `turn.completed` is the result with token
 *   usage (for the whole thread: a resumed thread's turn counts the turns before it too) but no
 *   cost, and `turn.failed` is a failed result. An `error` line is not a result: Codex writes
 *   "Reconnecting... 1/5 (stream disconnected ...)" and carries on to `turn.completed`; when it
 *   gives up, `turn.failed` (or its exit) decides. Both are `agent-error` lines, whose text is the
 *   agent's own account of its last failure.
 *
 * Everything else (user turns, tool results, hooks, other items) is kept in the raw log but reported
 * as nothing. What depends on earlier lines (one message per id, the first result decides, a Codex
 * result's final text) is `AgentOutputReader`'s work (agent-output.ts).
 */

import {
  claudeApiRetry,
  claudeMessageUsage,
  claudeRunUsage,
  isSyntheticMessage,
  type ApiRetry,
  type MessageUsage,
} from './claude-lines.js';

/** Claude's usage object, as it appears on assistant and result messages. */
export interface StreamUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  [other: string]: unknown;
}

export type StreamReport =
  | { type: 'agent.session'; sessionId: string }
  | {
      type: 'agent.assistant';
      /** Claude's `message.id` or Codex's item id: the lines that share it are one message. */
      messageId?: string;
      usage?: StreamUsage;
      text: string;
      /** Claude's own message (`"model":"<synthetic>"`: an API error, a timeout), not a model call's. */
      synthetic?: true;
    }
  | {
      type: 'agent.result';
      costUsd?: number;
      /** Every token the result's usage counts: input, output and both cache kinds. */
      totalTokens: number;
      /** The result's usage by kind, for callers that need more than the total. */
      usage?: StreamUsage;
      result?: string;
      isError: boolean;
      sessionId?: string;
      /** Claude's `result.permission_denials`: the tool calls it refused in the turn (its authoritative list). */
      permissionDenials?: PermissionDenial[];
      /**
       * Codex: the thread's usage in all, every turn of a resumed thread included (what
       * `turn.completed` counts); `usage` is this run's own, once the reader has taken off the
       * thread's total before the run. A lifecycle that resumes the thread keeps it for the next run.
       */
      threadUsage?: StreamUsage;
    }
  | ({ type: 'agent.permission_denied' } & PermissionDenial)
  /** Claude retrying a failed model call (`system/api_retry`). */
  | ({ type: 'agent.retrying' } & ApiRetry);

/** A tool call Claude refused without asking (or that its permission prompt tool denied). */
export interface PermissionDenial {
  toolName: string;
  toolUseId: string;
  /** What Claude told the model (the `system/permission_denied` line has it; the result's list does not). */
  message?: string;
  toolInput?: Record<string, unknown>;
}

export type ParsedLine =
  | { kind: 'report'; report: StreamReport }
  /**
   * An error the agent wrote on stdout (Codex): an `error` line, after which it may recover (no
   * report), or `turn.failed`, which ends the turn (its error result is the report).
   */
  | { kind: 'agent-error'; message: string; report?: StreamReport }
  /** A Claude `stream_event`'s usage of one message (its start, or its final `message_delta`). */
  | { kind: 'message-usage'; usage: MessageUsage }
  | { kind: 'other' }
  | { kind: 'invalid'; problem: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function usageOf(value: unknown): StreamUsage | undefined {
  return isObject(value) ? (value as StreamUsage) : undefined;
}

/** Assistant content is a list of blocks (text, tool_use, thinking) or, for synthetic messages, a string. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is { type: 'text'; text: string } =>
        isObject(block) && block.type === 'text' && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('');
}

function totalTokens(usage: StreamUsage | undefined): number {
  if (!usage) return 0;
  const kinds = [
    usage.input_tokens,
    usage.output_tokens,
    usage.cache_creation_input_tokens,
    usage.cache_read_input_tokens,
  ];
  return kinds.reduce<number>((sum, n) => sum + (typeof n === 'number' && Number.isFinite(n) ? n : 0), 0);
}

export function parseStreamJsonLine(line: string): ParsedLine {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return { kind: 'invalid', problem: `not JSON (${(error as Error).message})` };
  }
  if (!isObject(message)) return { kind: 'invalid', problem: 'not a JSON object' };

  if (message.type === 'system' && message.subtype === 'init') {
    if (typeof message.session_id !== 'string' || message.session_id === '')
      return { kind: 'invalid', problem: 'system/init without a session_id' };
    return { kind: 'report', report: { type: 'agent.session', sessionId: message.session_id } };
  }
  if (message.type === 'system' && message.subtype === 'permission_denied') {
    const denial = permissionDenialOf(message);
    if (!denial) return { kind: 'invalid', problem: 'system/permission_denied without a tool_name and tool_use_id' };
    return { kind: 'report', report: { type: 'agent.permission_denied', ...denial } };
  }
  if (message.type === 'system' && message.subtype === 'api_retry') {
    const retry = claudeApiRetry(message);
    if (!retry) return { kind: 'invalid', problem: 'system/api_retry without an attempt number' };
    return { kind: 'report', report: { type: 'agent.retrying', ...retry } };
  }
  if (message.type === 'stream_event') {
    const usage = claudeMessageUsage(message);
    return usage ? { kind: 'message-usage', usage } : { kind: 'other' };
  }
  if (message.type === 'assistant') {
    const inner = isObject(message.message) ? message.message : {};
    const usage = usageOf(inner.usage);
    const messageId = typeof inner.id === 'string' && inner.id !== '' ? inner.id : undefined;
    return {
      kind: 'report',
      report: {
        type: 'agent.assistant',
        ...(messageId && { messageId }),
        text: textOf(inner.content),
        ...(usage && { usage }),
        ...(isSyntheticMessage(message, inner) && { synthetic: true as const }),
      },
    };
  }
  if (message.type === 'result') {
    // After --resume, total_cost_usd counts the parent conversation too: the run's own figures win.
    const own = claudeRunUsage(message);
    const usage: StreamUsage | undefined = own ? { ...own.usage } : usageOf(message.usage);
    const costUsd = own?.costUsd ?? (typeof message.total_cost_usd === 'number' ? message.total_cost_usd : undefined);
    const isError =
      message.is_error === true || (typeof message.subtype === 'string' && message.subtype.startsWith('error'));
    return {
      kind: 'report',
      report: {
        type: 'agent.result',
        totalTokens: own?.totalTokens ?? totalTokens(usage),
        isError,
        ...(costUsd !== undefined && { costUsd }),
        ...(usage && { usage }),
        ...(typeof message.result === 'string' && { result: message.result }),
        ...(typeof message.session_id === 'string' && { sessionId: message.session_id }),
        ...(Array.isArray(message.permission_denials) &&
          message.permission_denials.length > 0 && {
            permissionDenials: message.permission_denials.flatMap((d) => permissionDenialOf(d) ?? []),
          }),
      },
    };
  }
  if (typeof message.type === 'string' && CODEX_TYPES.has(message.type)) return parseCodexLine(message);
  return { kind: 'other' };
}

/** One denial, from a `system/permission_denied` line or an entry of `result.permission_denials`. */
function permissionDenialOf(value: unknown): PermissionDenial | undefined {
  if (!isObject(value) || typeof value.tool_name !== 'string' || typeof value.tool_use_id !== 'string')
    return undefined;
  return {
    toolName: value.tool_name,
    toolUseId: value.tool_use_id,
    ...(typeof value.message === 'string' && { message: value.message }),
    ...(isObject(value.tool_input) && { toolInput: value.tool_input }),
  };
}

const CODEX_TYPES = new Set(['thread.started', 'item.completed', 'turn.completed', 'turn.failed', 'error']);

/**
 * Codex's usage counts cached input inside `input_tokens`; Claude's shape counts it apart, as a
 * cache read. Its `cache_write_input_tokens` are counted apart from `input_tokens` (as the
 * Responses API's `cache_write_tokens` are), like Claude's cache creation.
 */
function codexUsage(value: unknown): StreamUsage | undefined {
  if (!isObject(value)) return undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0);
  const input = count(value.input_tokens);
  const cached = Math.min(count(value.cached_input_tokens), input);
  return {
    input_tokens: input - cached,
    cache_creation_input_tokens: count(value.cache_write_input_tokens),
    cache_read_input_tokens: cached,
    output_tokens: count(value.output_tokens),
  };
}

function parseCodexLine(message: Record<string, unknown>): ParsedLine {
  switch (message.type) {
    case 'thread.started':
      if (typeof message.thread_id !== 'string' || message.thread_id === '')
        return { kind: 'invalid', problem: 'thread.started without a thread_id' };
      return { kind: 'report', report: { type: 'agent.session', sessionId: message.thread_id } };
    case 'item.completed': {
      const item = isObject(message.item) ? message.item : {};
      if (item.type !== 'agent_message') return { kind: 'other' };
      const messageId = typeof item.id === 'string' && item.id !== '' ? item.id : undefined;
      return {
        kind: 'report',
        report: {
          type: 'agent.assistant',
          ...(messageId && { messageId }),
          text: typeof item.text === 'string' ? item.text : '',
        },
      };
    }
    case 'turn.completed': {
      const usage = codexUsage(message.usage);
      return {
        kind: 'report',
        report: {
          type: 'agent.result',
          totalTokens: totalTokens(usage),
          isError: false,
          ...(usage && { usage, threadUsage: usage }),
        },
      };
    }
    case 'turn.failed': {
      const error = isObject(message.error) ? message.error : {};
      const text = typeof error.message === 'string' ? error.message : 'codex reported turn.failed';
      return {
        kind: 'agent-error',
        message: text,
        report: { type: 'agent.result', totalTokens: 0, isError: true, result: text },
      };
    }
    default: {
      // An `error` line: "Reconnecting... 1/5 (...)", or the error it is about to give up with.
      const text = typeof message.message === 'string' ? message.message : 'codex reported an error';
      return { kind: 'agent-error', message: text };
    }
  }
}
