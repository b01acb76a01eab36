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
      report: { type: 'agent.assistant', text: 'API Error: Request timed out.' },
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
