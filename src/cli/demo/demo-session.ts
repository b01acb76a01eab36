import { join } from 'node:path';
import type { SessionRecord } from '../../session/index.js';
import type { DemoContext } from './demo-context.js';
import { slotOf } from './readable-ids.js';

/** How long the stand-in agent waits for a person's decision: long enough to find the button. */
const DECISION_WAIT_S = 3600;

/**
 * A Claude Code session (a stand-in agent) that wants to run `npm test` and waits for a person to
 * approve or deny it, from the view's buttons. A session still waiting from last time is left waiting.
 */
export async function driveSession(demo: DemoContext): Promise<void> {
  const slot = await slotOf(demo.runtime, 'session', 'session');
  if (slot.active) {
    const session = await demo.sessions.get(slot.active);
    demo.print(
      `${slot.active.padEnd(12)} picked up in ${session.status}${session.status === 'waiting_input' ? ': approve or deny its tool call in the view' : ''}`,
    );
    return;
  }
  const id = slot.next;
  let unsubscribe = () => {};
  const running = new Promise<void>((resolve) => {
    unsubscribe = demo.sessions.onStatusChanged(
      (change) => change.session_id === id && change.new_status !== 'starting' && resolve(),
    );
  });
  const launched: SessionRecord = await demo.sessions.launch({
    id,
    query: 'Make the test suite pass',
    config: {
      command: [join(demo.agents, 'session-approval.sh')],
      env: { STANDIN_DECISION_WAIT_S: String(DECISION_WAIT_S), STANDIN_SESSION_ID: `claude-${id}` },
    },
  });
  demo.print(`${id.padEnd(12)} started (a stand-in Claude Code session)`);
  if (launched.status === 'starting')
    await Promise.race([running, new Promise<void>((resolve) => demo.onStop(resolve))]);
  unsubscribe();
  if (demo.stopping()) return;
  const now = await demo.sessions.get(id);
  if (now.status !== 'running') return demo.print(`${id.padEnd(12)} ${now.status}`);
  await demo.pause();
  await demo.sessions.requestApproval(
    id,
    { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: `toolu_${id}` },
    { actor: 'claude', reason: 'the agent wants to run a tool' },
  );
  demo.print(`${id.padEnd(12)} waits for you: approve or deny its tool call (Bash "npm test") in the view`);
}
