/**
 * Claude Code's `--output-format stream-json`: one JSON object per line. Three kinds matter to a
 * lifecycle: `system`/`init` carries the session id, `assistant` messages carry text and token
 * usage, and the `result` message carries the authoritative cost. Everything else (user turns,
 * tool results) is kept in the raw log but reported as nothing.
 */

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
  | { type: 'agent.assistant'; usage?: StreamUsage; text: string }
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
    };

export type ParsedLine = { kind: 'report'; report: StreamReport } | { kind: 'other' } | { kind: 'invalid'; problem: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function usageOf(value: unknown): StreamUsage | undefined {
  return isObject(value) ? (value as StreamUsage) : undefined;
}

/** Assistant content is a list of blocks (text, tool_use, thinking) or, for synthetic messages, a string. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is { type: 'text'; text: string } => isObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('');
}

function totalTokens(usage: StreamUsage | undefined): number {
  if (!usage) return 0;
  const kinds = [usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens];
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
    if (typeof message.session_id !== 'string' || message.session_id === '') return { kind: 'invalid', problem: 'system/init without a session_id' };
    return { kind: 'report', report: { type: 'agent.session', sessionId: message.session_id } };
  }
  if (message.type === 'assistant') {
    const inner = isObject(message.message) ? message.message : {};
    const usage = usageOf(inner.usage);
    return { kind: 'report', report: { type: 'agent.assistant', text: textOf(inner.content), ...(usage && { usage }) } };
  }
  if (message.type === 'result') {
    const usage = usageOf(message.usage);
    const isError = message.is_error === true || (typeof message.subtype === 'string' && message.subtype.startsWith('error'));
    return {
      kind: 'report',
      report: {
        type: 'agent.result',
        totalTokens: totalTokens(usage),
        isError,
        ...(typeof message.total_cost_usd === 'number' && { costUsd: message.total_cost_usd }),
        ...(usage && { usage }),
        ...(typeof message.result === 'string' && { result: message.result }),
        ...(typeof message.session_id === 'string' && { sessionId: message.session_id }),
      },
    };
  }
  return { kind: 'other' };
}
