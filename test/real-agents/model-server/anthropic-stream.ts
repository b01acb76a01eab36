/**
 * A reply as the Anthropic Messages API streams it (what Claude Code reads): `message_start` with
 * the input usage and `output_tokens: 1`, each block as `content_block_start` / `_delta` /
 * `_stop` (text in two deltas, a tool call's input as `input_json_delta`), then `message_delta`
 * with the stop reason and the final output count, and `message_stop`.
 */
import { DEFAULT_INPUT_TOKENS, outputTokens, type Reply, type StreamEvent } from './reply.js';

export function anthropicEvents(reply: Reply, messageId: string, model: string): StreamEvent[] {
  const usage = reply.usage ?? {};
  const blocks = reply.blocks ?? [];
  const start: StreamEvent = {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input ?? DEFAULT_INPUT_TOKENS,
          cache_creation_input_tokens: usage.cacheWrite ?? 0,
          cache_read_input_tokens: usage.cacheRead ?? 0,
          output_tokens: 1,
        },
      },
    },
  };
  const content = blocks.flatMap((block, index): StreamEvent[] => {
    if ('text' in block) {
      const half = Math.ceil(block.text.length / 2);
      return [
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        },
        ...[block.text.slice(0, half), block.text.slice(half)]
          .filter((part) => part !== '')
          .map((text) => ({
            event: 'content_block_delta',
            data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
          })),
        { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
      ];
    }
    return [
      {
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: {
            type: 'tool_use',
            id: block.id ?? `toolu_${messageId}_${index}`,
            name: block.tool,
            input: {},
          },
        },
      },
      {
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
    ];
  });
  const toolCall = blocks.some((block) => 'tool' in block);
  return [
    start,
    ...content,
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: toolCall ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: outputTokens(reply) },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

/** The Messages API's error body for an HTTP error (529 is `overloaded_error`). */
export function anthropicError(status: number, message: string): Record<string, unknown> {
  const type =
    status === 529
      ? 'overloaded_error'
      : status === 429
        ? 'rate_limit_error'
        : status >= 500
          ? 'api_error'
          : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}
