/**
 * An approval nobody decides reaches the real Claude as the deny docs/mcp.md promises: on a real
 * `statewright serve`, the session's `approval_timeout_ms` runs out while Claude's permission prompt
 * call waits; `statewright mcp` answers the call with the deny (not `Connection closed`: the agent
 * is not stopped before it has it), Claude sends the model the deny as the tool's error result, and
 * the session fails as the seed says, keeping the cost Claude reported. Needs `npm run build`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { assertRealAgentsInstalled } from './real-agents.js';
import { bashThenFinish, runWhen, startClaudeSession } from './served-claude-session.js';
import { testDir } from '../stores/temp-dir.js';
import { startServeProcess } from '../support/serve-process.js';

beforeAll(assertRealAgentsInstalled);

it('an approval that times out is denied to Claude, which reports it; then the session fails', async () => {
  const dir = testDir('approval-timeout');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
  const id = 'claude-timeout';
  const session = await startClaudeSession(serve, dir, id, bashThenFinish('echo ran > ran.txt'), {
    approval_timeout_ms: 2_000,
    // Claude's one model call after the deny has this long before the session fails without it.
    interrupt_grace_ms: 30_000,
  });
  const done = await runWhen(serve, id, (run) => run.status !== 'active');

  // The model's second call carries Claude's tool_result for the Bash call: the deny, as an error.
  expect(session.model.requests).toHaveLength(2);
  const messages = session.model.requests[1]!.body.messages as { content: unknown }[];
  const results = messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((block: any) => block.type === 'tool_result');
  expect(results, JSON.stringify(messages)).toHaveLength(1);
  const text = JSON.stringify(results[0]);
  expect(results[0]).toMatchObject({ is_error: true });
  expect(text).toContain(
    `Nobody decided on Bash within the session's approval timeout (2000 ms) in statewright session ${id}: denied.`,
  );
  expect(text).not.toContain('Connection closed');
  expect(existsSync(join(session.work, 'ran.txt'))).toBe(false);

  // The session fails as documented, on Claude's exit after its final answer, with its cost.
  expect(done.state, JSON.stringify(done.context)).toBe('failed');
  expect(done.context.error_message).toBe('Interrupted while waiting for approval');
  expect(done.context.approvals).toEqual([expect.objectContaining({ tool_name: 'Bash', status: 'expired' })]);
  expect(done.context.exit).toMatchObject({ code: 0 });
  expect(done.context.cost_usd).toBeGreaterThan(0);
  session.model.assertAllAnswered();
  await serve.stop('SIGTERM');
});
