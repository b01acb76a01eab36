/**
 * A reply as the OpenAI Responses API streams it (what Codex reads): `response.created`, each
 * block as an output item (`response.output_item.added`, text deltas, `response.output_item.done`;
 * a tool call as a `function_call` item with its arguments as a JSON string), then
 * `response.completed` with the usage (cached input counted inside `input_tokens`, as OpenAI does).
 */
import { DEFAULT_INPUT_TOKENS, outputTokens, type Reply, type StreamEvent } from './reply.js';

export function responsesEvents(reply: Reply, responseId: string, model: string): StreamEvent[] {
  const usage = reply.usage ?? {};
  const response = { id: responseId, object: 'response', model, status: 'in_progress', output: [] };
  const items = (reply.blocks ?? []).flatMap((block, output_index): StreamEvent[] => {
    const itemId = `${responseId}_item_${output_index}`;
    if ('text' in block) {
      const done = {
        type: 'message',
        id: itemId,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: block.text, annotations: [] }],
      };
      return [
        {
          event: 'response.output_item.added',
          data: {
            type: 'response.output_item.added',
            output_index,
            item: { ...done, status: 'in_progress', content: [] },
          },
        },
        {
          event: 'response.output_text.delta',
          data: {
            type: 'response.output_text.delta',
            item_id: itemId,
            output_index,
            content_index: 0,
            delta: block.text,
          },
        },
        { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index, item: done } },
      ];
    }
    const item = {
      type: 'function_call',
      id: itemId,
      call_id: block.id ?? `call_${itemId}`,
      // Codex offers an MCP server's tools as a namespace (`mcp__<server>`): a call of one names both.
      ...namespaced(block.tool),
      arguments: JSON.stringify(block.input),
      status: 'completed',
    };
    return [
      {
        event: 'response.output_item.added',
        data: { type: 'response.output_item.added', output_index, item: { ...item, arguments: '' } },
      },
      { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index, item } },
    ];
  });
  const cached = usage.cacheRead ?? 0;
  const input = (usage.input ?? DEFAULT_INPUT_TOKENS) + cached;
  const output = outputTokens(reply);
  return [
    { event: 'response.created', data: { type: 'response.created', response } },
    ...items,
    {
      event: 'response.completed',
      data: {
        type: 'response.completed',
        response: {
          ...response,
          status: 'completed',
          usage: {
            input_tokens: input,
            input_tokens_details: {
              cached_tokens: cached,
              ...(usage.cacheWrite !== undefined && { cache_write_tokens: usage.cacheWrite }),
            },
            output_tokens: output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: input + output,
          },
        },
      },
    },
  ];
}

/** The Responses API's error body for an HTTP error. */
export function responsesError(status: number, message: string): Record<string, unknown> {
  return { error: { type: status >= 500 ? 'server_error' : 'invalid_request_error', message, code: null } };
}

/** `mcp__<server>__<tool>` is the tool `<tool>` in the namespace `mcp__<server>`; any other name is a plain function. */
function namespaced(tool: string): { name: string; namespace?: string } {
  const match = /^(mcp__[^_]+(?:_[^_]+)*?)__(.+)$/.exec(tool);
  return match ? { namespace: match[1]!, name: match[2]! } : { name: tool };
}
