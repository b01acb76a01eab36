/**
 * A resumed Codex thread's usage before each iteration, as the loop keeps it: in the transcript's
 * results, so a runner that opens the loop again (after a crash or for `--resume`) passes the same
 * total to the agent that resumes the thread, and an iteration's own usage is never counted twice.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { LoopRecord } from '../../src/review-loop/loop-record.js';
import { resolveLoopSettings } from '../../src/review-loop/settings.js';
import { testDir } from '../stores/temp-dir.js';

const settings = resolveLoopSettings({ prompt: 'Implement it.', primary: { command: ['codex', 'exec', '--json'] } });
const clock = new ManualClock(Date.parse('2026-11-28T12:00:00Z'));

const result = (iteration: number, sessionId: string, input: number) => ({
  type: 'result' as const,
  agent: 'primary' as const,
  iteration,
  output: `Implemented step ${iteration}.`,
  isError: false,
  totalTokens: 100,
  sessionId,
  threadUsage: { input_tokens: input, output_tokens: 10 },
});

describe("the loop's record of each thread's usage", () => {
  it('gives the total of the last earlier run in that thread, also once the loop is opened again', async () => {
    const runDir = testDir('thread-usage');
    const record = await LoopRecord.create(runDir, 'loop-1', settings, { clock, repoPath: runDir });
    await record.note(result(1, 't-1', 1000), 'result:primary:1');
    await record.note(result(2, 't-1', 2000), 'result:primary:2');
    await record.note({ ...result(3, 't-2', 500), agent: 'reviewer' }, 'result:reviewer:3');
    await record.close();

    const reopened = await LoopRecord.open(runDir, { clock });
    // Iteration 3 resumes t-1: it takes off what the thread had after iteration 2.
    expect(reopened.threadUsageBefore('primary', 't-1', 3)).toEqual({
      sessionId: 't-1',
      usage: { input_tokens: 2000, output_tokens: 10 },
    });
    // Iteration 2's agent, adopted or run again, takes off iteration 1's total, not its own.
    expect(reopened.threadUsageBefore('primary', 't-1', 2)?.usage.input_tokens).toBe(1000);
    expect(reopened.threadUsageBefore('primary', 't-1', 1)).toBeUndefined();
    // Another agent's thread, or another thread, is not this one.
    expect(reopened.threadUsageBefore('primary', 't-2', 4)).toBeUndefined();
    expect(reopened.threadUsageBefore('reviewer', 't-2', 4)?.usage.input_tokens).toBe(500);
    await reopened.close();
  });
});
