/**
 * The usage of one model call, read from what the API answered: the Messages API (Claude Code) in
 * its stream's `message_start` (input and cache counts, one output token) and `message_delta` (the
 * final output count, and any count it restates), or in a whole JSON message; the Responses API
 * (Codex) in `response.completed` (also `response.incomplete` and `response.failed`, which carry
 * what was spent), or a whole JSON response. Returned in Claude's shape (`AgentUsage`): the
 * Responses API counts cached input inside `input_tokens`, and it is taken out as a cache read.
 */
import type { AgentUsage } from '../../../machines/agent-pricing.js';

/** Which API a model call speaks. */
export type WireApi = 'messages' | 'responses';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (n: unknown): number | undefined =>
  typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;

function messagesUsage(value: unknown): AgentUsage | undefined {
  if (!isObject(value)) return undefined;
  const usage: AgentUsage = {};
  for (const key of [
    'input_tokens',
    'output_tokens',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
  ] as const) {
    const n = count(value[key]);
    if (n !== undefined) usage[key] = n;
  }
  return usage;
}

function responsesUsage(value: unknown): AgentUsage | undefined {
  if (!isObject(value)) return undefined;
  const details = isObject(value.input_tokens_details) ? value.input_tokens_details : {};
  const input = count(value.input_tokens) ?? 0;
  const cached = Math.min(count(details.cached_tokens) ?? 0, input);
  return {
    input_tokens: input - cached,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: count(details.cache_write_tokens) ?? count(value.cache_write_tokens) ?? 0,
    output_tokens: count(value.output_tokens) ?? 0,
  };
}

const RESPONSE_ENDS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Follows one call's answer; `usage` is what it spent so far, once anything was counted. */
export class CallUsage {
  readonly #api: WireApi;
  #usage: AgentUsage | undefined;

  constructor(api: WireApi) {
    this.#api = api;
  }

  get usage(): AgentUsage | undefined {
    return this.#usage;
  }

  /** Whether a streamed event's text may carry usage (the others need not be parsed). */
  wants(block: string): boolean {
    if (this.#api === 'messages') return block.includes('message_start') || block.includes('message_delta');
    return (
      block.includes('response.completed') || block.includes('response.incomplete') || block.includes('response.failed')
    );
  }

  /** One streamed event's data. */
  event(data: unknown): void {
    if (!isObject(data)) return;
    if (this.#api === 'messages') {
      if (data.type === 'message_start' && isObject(data.message))
        this.#usage = { ...messagesUsage(data.message.usage) };
      else if (data.type === 'message_delta') this.#usage = { ...this.#usage, ...messagesUsage(data.usage) };
      return;
    }
    if (typeof data.type === 'string' && RESPONSE_ENDS.has(data.type) && isObject(data.response))
      this.#usage = responsesUsage(data.response.usage) ?? this.#usage;
  }

  /** A whole JSON answer (a call made without streaming). */
  body(data: unknown): void {
    if (!isObject(data)) return;
    const usage = this.#api === 'messages' ? messagesUsage(data.usage) : responsesUsage(data.usage);
    if (usage) this.#usage = usage;
  }
}
