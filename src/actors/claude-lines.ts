/**
 * What Claude Code's stream-json says beyond its messages and first result, read from one line
 * (stream-json.ts calls these on Claude's lines; what 2.1.328 really writes is in the comments):
 *
 * - With `--include-partial-messages`, `stream_event` lines pass on the Messages API's events. The
 *   `assistant` lines of a message carry the usage of its `message_start` (`output_tokens: 1`);
 *   its `message_delta` carries the final count (also after a SIGINT, with the aborted message's
 *   whole usage). The two are the first and the final usage of one message (`api_message_id`).
 * - A `result` after `--resume` (with or without `--fork-session`) has `total_cost_usd` and
 *   `modelUsage` of the whole conversation, the parent's turns included; the run's own are in
 *   `model_usage_since_last_result` (per model: inputTokens, outputTokens, cacheReadInputTokens,
 *   cacheCreationInputTokens, costUSD). After a SIGINT the result's `usage` is all zeros while that
 *   field keeps what the aborted call cost, so it is the run's figure whenever it is there.
 * - `system/api_retry` says Claude is retrying a failed model call (`attempt`, `max_retries`,
 *   `retry_delay_ms`, `error_status`, `error`): without it, minutes of 529 retries look like work.
 * - An assistant message with `"model":"<synthetic>"` is Claude's own text (an API error, a
 *   timeout), not the model's: no model call made it.
 */
import type { AgentUsage } from '../../machines/agent-pricing.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/** One message's usage from a `stream_event` line: `final` once its `message_delta` has come. */
export interface MessageUsage {
  messageId: string;
  usage: AgentUsage;
  final: boolean;
}

const USAGE_KINDS = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
] as const;

/** The token counts of a usage object, by the kinds the prices name; the rest is left out. */
function countsOf(value: unknown): AgentUsage {
  const usage: AgentUsage = {};
  if (!isObject(value)) return usage;
  for (const kind of USAGE_KINDS) {
    const n = count(value[kind]);
    if (n !== undefined) usage[kind] = n;
  }
  return usage;
}

/** A `stream_event` line's usage, if it is a message's start or its final delta; undefined for the rest. */
export function claudeMessageUsage(line: Json): MessageUsage | undefined {
  const event = isObject(line.event) ? line.event : undefined;
  if (!event) return undefined;
  if (event.type === 'message_start') {
    const message = isObject(event.message) ? event.message : {};
    const messageId = typeof message.id === 'string' && message.id !== '' ? message.id : line.api_message_id;
    if (typeof messageId !== 'string' || messageId === '') return undefined;
    return { messageId, usage: countsOf(message.usage), final: false };
  }
  if (event.type === 'message_delta' && typeof line.api_message_id === 'string' && line.api_message_id !== '')
    return { messageId: line.api_message_id, usage: countsOf(event.usage), final: true };
  return undefined;
}

/** A run's own cost and usage, from a result's `model_usage_since_last_result`. */
export interface RunUsage {
  costUsd?: number;
  usage: AgentUsage;
  totalTokens: number;
}

/** The run's own figures from a `result` line, or undefined when it has no `model_usage_since_last_result`. */
export function claudeRunUsage(result: Json): RunUsage | undefined {
  const byModel = result.model_usage_since_last_result;
  if (!isObject(byModel)) return undefined;
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  let costUsd: number | undefined;
  for (const model of Object.values(byModel)) {
    if (!isObject(model)) continue;
    usage.input_tokens += count(model.inputTokens) ?? 0;
    usage.output_tokens += count(model.outputTokens) ?? 0;
    usage.cache_creation_input_tokens += count(model.cacheCreationInputTokens) ?? 0;
    usage.cache_read_input_tokens += count(model.cacheReadInputTokens) ?? 0;
    const cost = count(model.costUSD);
    if (cost !== undefined) costUsd = (costUsd ?? 0) + cost;
  }
  const totalTokens = Object.values(usage).reduce((sum, n) => sum + n, 0);
  return { ...(costUsd !== undefined && { costUsd }), usage, totalTokens };
}

/** Claude retrying a model call (`system/api_retry`). */
export interface ApiRetry {
  attempt: number;
  maxRetries?: number;
  /** The HTTP status of the failed call (529, 500 ...), when it had one. */
  errorStatus?: number;
  /** Claude's name for the error ("overloaded" ...). */
  error?: string;
  retryDelayMs?: number;
}

/** The retry a `system/api_retry` line reports, or undefined when it has no attempt number. */
export function claudeApiRetry(line: Json): ApiRetry | undefined {
  const attempt = count(line.attempt);
  if (attempt === undefined) return undefined;
  const maxRetries = count(line.max_retries);
  const errorStatus = count(line.error_status);
  const retryDelayMs = count(line.retry_delay_ms);
  return {
    attempt,
    ...(maxRetries !== undefined && { maxRetries }),
    ...(errorStatus !== undefined && { errorStatus }),
    ...(typeof line.error === 'string' && line.error !== '' && { error: line.error }),
    ...(retryDelayMs !== undefined && { retryDelayMs }),
  };
}

/** Whether an assistant line's message is Claude's own (an API error, a timeout), not the model's. */
export const isSyntheticMessage = (line: Json, message: Json): boolean =>
  message.model === '<synthetic>' || line.is_api_error_message === true;
