import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/actor-contract/clock.js';
import {
  readTranscript,
  TranscriptError,
  TranscriptWriter,
  type TranscriptEvent,
} from '../../src/review-loop/transcript.js';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'statewright-transcript-'));
  path = join(dir, 'transcript.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const iteration: TranscriptEvent[] = [
  { type: 'start', runId: 'run-1', prompt: 'fix it', mode: 'paired', maxIterations: 3 },
  { type: 'state', from: 'init', to: 'working', event: 'AGENTS_STARTED' },
  { type: 'iteration', iteration: 1 },
  { type: 'execution', agent: 'primary', iteration: 1, command: ['examples/agents/loop-primary.sh'], pid: 4242 },
  {
    type: 'result',
    agent: 'primary',
    iteration: 1,
    output: 'DONE: fixed',
    isError: false,
    costUsd: 0.01,
    totalTokens: 120,
    sessionId: 's-1',
  },
  { type: 'signal', agent: 'primary', iteration: 1, signal: 'done', explicit: true, reason: 'fixed' },
  { type: 'error', error: 'reviewer exited with code 1 before reporting a result', agent: 'reviewer', iteration: 1 },
  { type: 'end', state: 'failed', iterations: 1, error: 'reviewer exited with code 1 before reporting a result' },
];

describe('the transcript', () => {
  it('records start, state, iteration, execution, result, signal, error and end events, stamped by the clock', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const writer = await TranscriptWriter.open(path, { clock });
    for (const event of iteration) {
      await writer.write(event);
      clock.advance(500);
    }
    await writer.close();
    const { entries, problems } = await readTranscript(path);
    expect(problems).toEqual([]);
    expect(entries).toEqual(
      iteration.map((event, i) => ({ at: new Date(Date.UTC(2026, 0, 1) + i * 500).toISOString(), ...event })),
    );
    expect((await readFile(path, 'utf8')).split('\n')[0]).toBe(
      '{"at":"2026-01-01T00:00:00.000Z","type":"start","runId":"run-1","prompt":"fix it","mode":"paired","maxIterations":3}',
    );
  });

  it('refuses an event outside its format, writing nothing', async () => {
    const writer = await TranscriptWriter.open(path);
    await expect(writer.write({ type: 'state', from: 'init', to: 'paused', event: 'X' } as never)).rejects.toThrow(
      TranscriptError,
    );
    await expect(writer.write({ type: 'iteration', iteration: -1 })).rejects.toThrow(/iteration/);
    await expect(writer.write({ type: 'gossip' } as never)).rejects.toThrow(TranscriptError);
    await writer.close();
    expect((await readTranscript(path)).entries).toEqual([]);
  });

  it('continues the transcript of a resumed run, reporting and cutting off a torn last line', async () => {
    const first = await TranscriptWriter.open(path);
    await first.write({ type: 'iteration', iteration: 1 });
    await first.close();
    await appendFile(path, '{"at":"2026-01-01T00:00:00.000Z","type":"itera');

    const resumed = await TranscriptWriter.open(path);
    expect(resumed.problems).toEqual([{ path, line: 2, reason: expect.stringMatching(/^torn last line/) }]);
    await resumed.write({ type: 'iteration', iteration: 2 });
    await resumed.close();
    const { entries, problems } = await readTranscript(path);
    expect(problems).toEqual([]);
    expect(entries.map((e) => (e.type === 'iteration' ? e.iteration : e.type))).toEqual([1, 2]);
  });

  it('reports a line that is JSON but not a transcript entry', async () => {
    await appendFile(path, '{"type":"iteration","iteration":1}\n');
    const { entries, problems } = await readTranscript(path);
    expect(entries).toEqual([]);
    expect(problems).toEqual([{ path, line: 1, reason: expect.stringMatching(/not a valid record .*at/) }]);
  });
});
