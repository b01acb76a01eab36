/**
 * What each agent is told at the start of its run: the task, the iteration, and the messages the
 * other agent left for it on the bridge (the reviewer's feedback for the primary, the primary's
 * report for the reviewer), plus how to signal. agentpair builds its prompts the same way.
 */
import type { AgentRole } from '../../machines/review-loop/index.js';
import type { BridgeMessage } from './message-log.js';
import type { LoopSettings } from './settings.js';

function quoted(messages: readonly BridgeMessage[], heading: string): string {
  if (messages.length === 0) return '';
  const body = messages
    .map((m) => `[iteration ${m.iteration ?? '?'}, ${m.from} ${m.type}]\n${m.content.trim()}`)
    .join('\n\n');
  return `\n\n${heading}\n\n${body}`;
}

export function agentPrompt(
  role: AgentRole,
  settings: LoopSettings,
  iteration: number,
  messages: readonly BridgeMessage[],
): string {
  const of = `iteration ${iteration} of at most ${settings.maxIterations}`;
  if (role === 'primary') {
    return (
      `${settings.prompt}\n\n(${of})` +
      quoted(messages, 'Feedback on your earlier work:') +
      `\n\nWhen the task is complete, end your reply with a line "${settings.doneSignal}: <summary>". If it cannot be done, end with "FAIL: <reason>".\n`
    );
  }
  return (
    `Review the work done for this task (${of}):\n\n${settings.prompt}` +
    quoted(messages, "The primary agent's report:") +
    '\n\nEnd your reply with one line: "PASS: <reason>" if the work is complete and correct, ' +
    '"NEEDS CHANGES: <what is missing>" if not, or "FAIL: <reason>" if it cannot succeed.\n'
  );
}
