/**
 * The agent output reader on real transcripts (../shared/agent-transcripts/) and on the stand-in
 * transcripts of the cases they lack: what it reports against what each transcript's own lines say.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentOutputReader, type ReadLine } from '../../src/actors/agent-output.js';
import type { StreamReport } from '../../src/actors/stream-json.js';
import {
  OWN_TRANSCRIPTS,
  SHARED_TRANSCRIPTS,
  TEST_PRICING,
  transcriptFacts,
  transcriptFiles,
} from '../support/transcript-facts.js';

function readAll(text: string, pricing = TEST_PRICING) {
  const reader = new AgentOutputReader(pricing);
  const read: ReadLine[] = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => reader.read(line));
  const reports = read.flatMap((r) => [...(r.released ?? []), ...(r.report ? [r.report] : [])]);
  const of = <T extends StreamReport['type']>(type: T) =>
    reports.filter((r): r is Extract<StreamReport, { type: T }> => r.type === type);
  return { reports, of, warnings: read.flatMap((r) => (r.warning ? [r.warning] : [])) };
}

describe.each(
  [...transcriptFiles(SHARED_TRANSCRIPTS), ...transcriptFiles(OWN_TRANSCRIPTS)].map((path) => [basename(path), path]),
)('%s', (_name, path) => {
  const facts = transcriptFacts(path);
  const { of } = readAll(readFileSync(path, 'utf8'));

  it("reports the transcript's session id, once per message id, and its first result", () => {
    expect(of('agent.session').map((r) => r.sessionId)).toEqual([facts.sessionId]);
    expect(of('agent.assistant')).toHaveLength(facts.messages);
    const results = of('agent.result');
    expect(results).toHaveLength(facts.result ? 1 : 0);
    if (!facts.result) return;
    const [result] = results;
    expect(result).toMatchObject({
      isError: facts.result.isError,
      totalTokens: facts.result.totalTokens,
      sessionId: facts.sessionId,
    });
    expect(result!.result).toBe(facts.result.text);
    expect(result!.costUsd).toBeCloseTo(facts.result.costUsd, 12);
    expect(result!.usage).toMatchObject({
      input_tokens: facts.result.tokens.input,
      output_tokens: facts.result.tokens.output,
      cache_read_input_tokens: facts.result.tokens.cacheRead,
    });
  });

  it('takes usage once per message', () => {
    const tokens = of('agent.assistant').reduce(
      (sum, { usage: u = {} }) =>
        sum +
        (u.input_tokens ?? 0) +
        (u.output_tokens ?? 0) +
        (u.cache_read_input_tokens ?? 0) +
        (u.cache_creation_input_tokens ?? 0),
      0,
    );
    expect(tokens).toBe(facts.messageTokens);
  });
});

describe('AgentOutputReader', () => {
  it('keeps the first result and warns of a later one that contradicts it (the Agent SDK quirk)', () => {
    const success = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      total_cost_usd: 1.5,
      result: 'done',
    });
    const error = JSON.stringify({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      total_cost_usd: 0,
    });
    const { of, warnings } = readAll(`${success}\n${error}`);
    expect(of('agent.result')).toEqual([expect.objectContaining({ isError: false, costUsd: 1.5, result: 'done' })]);
    expect(warnings).toEqual([
      'a later result (an error costing 0 USD) is ignored: the first result (a success costing 1.5 USD) decides',
    ]);
  });

  it('keeps is_error with subtype success a failure', () => {
    const { of } = readAll(
      JSON.stringify({ type: 'result', subtype: 'success', is_error: true, total_cost_usd: 0, result: 'bad model' }),
    );
    expect(of('agent.result')).toEqual([expect.objectContaining({ isError: true, result: 'bad model' })]);
  });

  it('counts an assistant line without a message id as a message of its own', () => {
    const line = JSON.stringify({
      type: 'assistant',
      message: { content: 'hi', usage: { input_tokens: 1, output_tokens: 1 } },
    });
    expect(readAll(`${line}\n${line}`).of('agent.assistant')).toHaveLength(2);
  });

  it("reads Codex's failures: an error line is no result (Codex may reconnect), turn.failed is, with its error", () => {
    const reconnect = JSON.stringify({ type: 'error', message: 'Reconnecting... 1/5 (stream disconnected)' });
    const final = JSON.stringify({ type: 'error', message: 'stream disconnected' });
    const failed = JSON.stringify({ type: 'turn.failed', error: { message: 'stream disconnected' } });
    const reader = new AgentOutputReader(TEST_PRICING);
    const read = ['{"type":"thread.started","thread_id":"t1"}', reconnect, final, failed].map((l) => reader.read(l));
    expect(read.flatMap((r) => (r.report?.type === 'agent.result' ? [r.report] : []))).toEqual([
      { type: 'agent.result', isError: true, totalTokens: 0, result: 'stream disconnected', sessionId: 't1' },
    ]);
    expect(read[1]!.warning).toBe(
      'the agent reported an error, not a result (it may carry on): Reconnecting... 1/5 (stream disconnected)',
    );
    expect(reader.lastError).toBe('stream disconnected');
  });

  it('takes the turn that completes after a reconnect as the result: its success, its usage', () => {
    const { of } = readAll(
      [
        '{"type":"thread.started","thread_id":"t1"}',
        '{"type":"error","message":"Reconnecting... 1/5 (stream disconnected)"}',
        '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"whole"}}',
        '{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":5}}',
      ].join('\n'),
    );
    expect(of('agent.result')).toEqual([
      expect.objectContaining({ isError: false, result: 'whole', totalTokens: 105, sessionId: 't1' }),
    ]);
  });

  it('leaves the cost of a Codex turn unknown when no pricing is configured', () => {
    const reader = new AgentOutputReader();
    const { report } = reader.read(
      '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}',
    );
    const usage = { input_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 4, output_tokens: 2 };
    expect(report).toEqual({ type: 'agent.result', isError: false, totalTokens: 12, usage, threadUsage: usage });
  });

  it("counts a Codex turn's cache writes apart from its input, as cache creation", () => {
    const { report } = new AgentOutputReader().read(
      '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"cache_write_input_tokens":3,"output_tokens":2}}',
    );
    expect(report).toMatchObject({
      totalTokens: 15,
      usage: { input_tokens: 6, cache_creation_input_tokens: 3, cache_read_input_tokens: 4, output_tokens: 2 },
    });
  });

  describe("a resumed Codex thread's turn", () => {
    const before = {
      input_tokens: 1000,
      output_tokens: 50,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    const lines = (thread: string, input: number, output: number) => [
      `{"type":"thread.started","thread_id":"${thread}"}`,
      `{"type":"turn.completed","usage":{"input_tokens":${input},"cached_input_tokens":0,"output_tokens":${output}}}`,
    ];
    const resultOf = (reader: AgentOutputReader, text: string[]) => {
      const read = text.map((line) => reader.read(line));
      return { result: read.at(-1)!.report, warning: read.at(-1)!.warning };
    };

    it("is the difference from the thread's total before the run: tokens and cost", () => {
      const reader = new AgentOutputReader(TEST_PRICING, { sessionId: 't1', usage: before });
      const { result, warning } = resultOf(reader, lines('t1', 2200, 120));
      const own = { input_tokens: 1200, output_tokens: 70, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
      expect(result).toMatchObject({
        totalTokens: 1270,
        usage: own,
        costUsd: (1200 * TEST_PRICING.input + 70 * TEST_PRICING.output) / 1e6,
        threadUsage: { input_tokens: 2200, output_tokens: 120 },
      });
      expect(warning).toBeUndefined();
    });

    it('is the whole usage when the agent names another thread (a fresh one)', () => {
      const reader = new AgentOutputReader(TEST_PRICING, { sessionId: 't1', usage: before });
      expect(resultOf(reader, lines('t2', 300, 10)).result).toMatchObject({ totalTokens: 310 });
    });

    it("is the whole usage, with a warning, when the thread's total went down", () => {
      const reader = new AgentOutputReader(TEST_PRICING, { sessionId: 't1', usage: before });
      const { result, warning } = resultOf(reader, lines('t1', 300, 10));
      expect(result).toMatchObject({ totalTokens: 310 });
      expect(warning).toMatch(/below its total before this run/);
    });
  });

  describe("Claude's partial messages (--include-partial-messages)", () => {
    // The shapes claude 2.1.328 writes: message_start, the block as an assistant line with the
    // start's usage (one output token), then message_delta with the final count, message_stop.
    const streamEvent = (id: string, event: object) =>
      JSON.stringify({ type: 'stream_event', event, session_id: 's', api_message_id: id });
    const start = (id: string, input: number) =>
      streamEvent(id, { type: 'message_start', message: { id, usage: { input_tokens: input, output_tokens: 1 } } });
    const assistant = (id: string, content: object[]) =>
      JSON.stringify({ type: 'assistant', message: { id, content, usage: { input_tokens: 100, output_tokens: 1 } } });
    const delta = (id: string, output: number) =>
      streamEvent(id, { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: output } });
    const stop = (id: string) => streamEvent(id, { type: 'message_stop' });
    const text = (t: string) => ({ type: 'text', text: t });

    it('reports each message once, at its message_delta, with its final usage and the text of all its blocks', () => {
      const reader = new AgentOutputReader(TEST_PRICING);
      const read = (line: string) => reader.read(line);
      expect(read(start('msg_1', 100))).toEqual({});
      expect(read(streamEvent('msg_1', { type: 'content_block_delta', delta: { text: 'one' } }))).toEqual({});
      expect(read(assistant('msg_1', [text('one ')]))).toEqual({});
      expect(read(assistant('msg_1', [text('two')]))).toEqual({});
      expect(read(delta('msg_1', 5000)).report).toEqual({
        type: 'agent.assistant',
        messageId: 'msg_1',
        text: 'one two',
        usage: { input_tokens: 100, output_tokens: 5000 },
      });
      expect(read(stop('msg_1'))).toEqual({});
      // A late line of the same message is no second message.
      expect(read(assistant('msg_1', [text('again')]))).toEqual({});
    });

    it('releases a message whose final usage never came before the result, and at the end of the output', () => {
      const result = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, total_cost_usd: 0.1 });
      const { reports } = readAll([start('msg_1', 10), assistant('msg_1', [text('cut')]), result].join('\n'));
      expect(reports.map((r) => r.type)).toEqual(['agent.assistant', 'agent.result']);
      expect(reports[0]).toMatchObject({ text: 'cut', usage: { output_tokens: 1 } });

      const reader = new AgentOutputReader();
      reader.read(start('msg_2', 10));
      reader.read(assistant('msg_2', [text('killed')]));
      expect(reader.finish()).toEqual([expect.objectContaining({ messageId: 'msg_2', text: 'killed' })]);
      expect(reader.finish()).toEqual([]);
    });

    it('reports a message at once when its stream events are not there (no flag, a synthetic message)', () => {
      const { of } = readAll(assistant('msg_9', [text('plain')]));
      expect(of('agent.assistant')).toEqual([expect.objectContaining({ messageId: 'msg_9', text: 'plain' })]);
    });
  });

  it('calls a line cut short invalid, with what was wrong', () => {
    expect(new AgentOutputReader().read('{"type":"assistant","mess').warning).toMatch(
      /^agent log line ignored: not JSON/,
    );
  });
});
