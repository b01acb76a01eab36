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
  const reports = read.flatMap((r) => (r.report ? [r.report] : []));
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

  it("reads Codex's failures: turn.failed and error are error results, the first deciding", () => {
    const failed = JSON.stringify({ type: 'turn.failed', error: { message: 'stream disconnected' } });
    const error = JSON.stringify({ type: 'error', message: 'unexpected status 401' });
    const { of, warnings } = readAll(`{"type":"thread.started","thread_id":"t1"}\n${failed}\n${error}`);
    expect(of('agent.result')).toEqual([
      { type: 'agent.result', isError: true, totalTokens: 0, result: 'stream disconnected', sessionId: 't1' },
    ]);
    expect(warnings).toHaveLength(1);
    expect(readAll(error).of('agent.result')).toEqual([
      { type: 'agent.result', isError: true, totalTokens: 0, result: 'unexpected status 401' },
    ]);
  });

  it('leaves the cost of a Codex turn unknown when no pricing is configured', () => {
    const reader = new AgentOutputReader();
    const { report } = reader.read(
      '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}',
    );
    expect(report).toEqual({
      type: 'agent.result',
      isError: false,
      totalTokens: 12,
      usage: { input_tokens: 6, cache_read_input_tokens: 4, output_tokens: 2 },
    });
  });

  it('calls a line cut short invalid, with what was wrong', () => {
    expect(new AgentOutputReader().read('{"type":"assistant","mess').warning).toMatch(
      /^agent log line ignored: not JSON/,
    );
  });
});
