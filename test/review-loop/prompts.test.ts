import { describe, expect, it } from 'vitest';
import type { BridgeMessage } from '../../src/review-loop/message-log.js';
import { agentPrompt } from '../../src/review-loop/prompts.js';
import { resolveLoopSettings } from '../../src/review-loop/settings.js';

const settings = resolveLoopSettings({
  prompt: 'Fix the parser.',
  maxIterations: 4,
  doneSignal: 'FINISHED',
  primary: { command: ['p'] },
  reviewer: { command: ['r'] },
});
const message = (from: string, type: BridgeMessage['type'], content: string, iteration: number): BridgeMessage => ({
  id: `${from}-${iteration}`,
  from,
  to: from === 'primary' ? 'reviewer' : 'primary',
  type,
  content,
  iteration,
  at: 0,
});

describe('agent prompts', () => {
  it('gives the primary its task, the iteration, the reviews since its last run and how to say it is done', () => {
    const prompt = agentPrompt('primary', settings, 2, [
      message('reviewer', 'review', 'NEEDS CHANGES: empty input crashes\n', 1),
    ]);
    expect(prompt).toBe(
      'Fix the parser.\n\n(iteration 2 of at most 4)\n\nFeedback on your earlier work:\n\n[iteration 1, reviewer review]\nNEEDS CHANGES: empty input crashes' +
        '\n\nWhen the task is complete, end your reply with a line "FINISHED: <summary>". If it cannot be done, end with "FAIL: <reason>".\n',
    );
    expect(agentPrompt('primary', settings, 1, [])).not.toContain('Feedback');
  });

  it("gives the reviewer the task, the primary's report and the verdicts it may give", () => {
    const prompt = agentPrompt('reviewer', settings, 1, [message('primary', 'result', 'Handled empty input.', 1)]);
    expect(prompt).toContain('Fix the parser.');
    expect(prompt).toContain("The primary agent's report:\n\n[iteration 1, primary result]\nHandled empty input.");
    expect(prompt).toMatch(/"PASS: <reason>".*"NEEDS CHANGES: <what is missing>".*"FAIL: <reason>"/s);
  });
});
