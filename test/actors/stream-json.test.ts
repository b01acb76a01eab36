import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineTail } from '../../src/actors/line-tail.js';
import { parseStreamJsonLine } from '../../src/actors/stream-json.js';

describe('parseStreamJsonLine', () => {
  it('reads the session id from system/init, and refuses an init without one', () => {
    expect(parseStreamJsonLine('{"type":"system","subtype":"init","session_id":"abc"}')).toEqual({
      kind: 'report',
      report: { type: 'agent.session', sessionId: 'abc' },
    });
    expect(parseStreamJsonLine('{"type":"system","subtype":"init"}')).toEqual({
      kind: 'invalid',
      problem: 'system/init without a session_id',
    });
    expect(parseStreamJsonLine('{"type":"system","subtype":"compact_boundary"}')).toEqual({ kind: 'other' });
  });

  it('joins the text blocks of an assistant message and keeps its usage', () => {
    const line = JSON.stringify({
      type: 'assistant',
      message: {
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool_use', name: 'Read' },
          { type: 'text', text: 'b' },
        ],
        usage: { input_tokens: 3 },
      },
    });
    expect(parseStreamJsonLine(line)).toEqual({
      kind: 'report',
      report: { type: 'agent.assistant', text: 'ab', usage: { input_tokens: 3 } },
    });
  });

  it("reads a synthetic message's string content (the API timeout notice)", () => {
    const line = JSON.stringify({
      type: 'assistant',
      message: { model: '<synthetic>', content: 'API Error: Request timed out.' },
    });
    expect(parseStreamJsonLine(line)).toEqual({
      kind: 'report',
      report: { type: 'agent.assistant', text: 'API Error: Request timed out.', synthetic: true },
    });
  });

  it("reads a stream_event's message usage: the start's, and the final one of message_delta; nothing of the rest", () => {
    const event = (e: object) =>
      parseStreamJsonLine(JSON.stringify({ type: 'stream_event', event: e, api_message_id: 'msg_1' }));
    expect(
      event({ type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 100, output_tokens: 1 } } }),
    ).toEqual({
      kind: 'message-usage',
      usage: { messageId: 'msg_1', usage: { input_tokens: 100, output_tokens: 1 }, final: false },
    });
    expect(event({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 500 } })).toEqual(
      { kind: 'message-usage', usage: { messageId: 'msg_1', usage: { output_tokens: 500 }, final: true } },
    );
    expect(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } })).toEqual({
      kind: 'other',
    });
  });

  it("takes a resumed run's own cost and usage from model_usage_since_last_result, not the conversation's", () => {
    // What claude 2.1.328 wrote after --resume: total_cost_usd and modelUsage count the parent's turn too.
    const line = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      total_cost_usd: 0.0252,
      usage: { input_tokens: 200, output_tokens: 700 },
      modelUsage: { opus: { inputTokens: 300, outputTokens: 1200, costUSD: 0.0252 } },
      model_usage_since_last_result: {
        opus: {
          inputTokens: 200,
          outputTokens: 700,
          cacheReadInputTokens: 5,
          cacheCreationInputTokens: 0,
          costUSD: 0.0148,
        },
      },
    });
    expect(parseStreamJsonLine(line)).toMatchObject({
      report: {
        costUsd: 0.0148,
        totalTokens: 905,
        usage: { input_tokens: 200, output_tokens: 700, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 },
      },
    });
  });

  it('reads a system/api_retry line as Claude retrying', () => {
    const line = JSON.stringify({
      type: 'system',
      subtype: 'api_retry',
      attempt: 2,
      max_retries: 10,
      retry_delay_ms: 1092,
      error_status: 529,
      error: 'overloaded',
    });
    expect(parseStreamJsonLine(line)).toEqual({
      kind: 'report',
      report: {
        type: 'agent.retrying',
        attempt: 2,
        maxRetries: 10,
        retryDelayMs: 1092,
        errorStatus: 529,
        error: 'overloaded',
      },
    });
  });

  it('reads cost, total tokens and the error flag from the result', () => {
    const ok = parseStreamJsonLine(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        total_cost_usd: 0.5,
        result: 'r',
        session_id: 's',
        usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 4 },
      }),
    );
    expect(ok).toMatchObject({
      report: { type: 'agent.result', costUsd: 0.5, totalTokens: 10, isError: false, result: 'r', sessionId: 's' },
    });
    expect(parseStreamJsonLine('{"type":"result","subtype":"error_max_turns"}')).toEqual({
      kind: 'report',
      report: { type: 'agent.result', totalTokens: 0, isError: true },
    });
  });

  it('calls non-JSON and non-object lines invalid and everything else other', () => {
    expect(parseStreamJsonLine('{"type":"assist')).toMatchObject({
      kind: 'invalid',
      problem: expect.stringMatching(/^not JSON/),
    });
    expect(parseStreamJsonLine('[1]')).toEqual({ kind: 'invalid', problem: 'not a JSON object' });
    expect(parseStreamJsonLine('{"type":"user","message":{}}')).toEqual({ kind: 'other' });
  });
});

describe('LineTail', () => {
  it('yields whole lines with their byte offsets, across partial writes, from a starting offset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'statewright-tail-'));
    try {
      const path = join(dir, 'log');
      writeFileSync(path, 'old line\n');
      const tail = new LineTail(path, 9);
      expect(tail.read()).toEqual([]);
      appendFileSync(path, 'één\ntw');
      expect(tail.read()).toEqual([{ line: 'één', offset: 9 }]);
      appendFileSync(path, 'o\n\nthree');
      expect(tail.read()).toEqual([{ line: 'two', offset: 15 }]);
      expect(tail.finish()).toEqual([{ line: 'three', offset: 20 }]);
      tail.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
