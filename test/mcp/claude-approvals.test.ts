/**
 * The real `claude` (test/real-agents) in a session hosted by a real `statewright serve`, against
 * the scripted model server: the model asks for a Bash command, Claude asks serve's
 * `statewright mcp` (its --permission-prompt-tool, given by default), and the session waits in
 * waiting_input until a person decides through the API. Approved, the command really runs; denied,
 * it does not, the model reads the person's comment in the tool's result, and the refusal Claude
 * reports (its result's permission_denials) is recorded on the session.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { Reply } from '../real-agents/model-server/model-server.js';
import { assertRealAgentsInstalled } from '../real-agents/real-agents.js';
import { bashThenFinish, runWhen, startClaudeSession } from '../real-agents/served-claude-session.js';
import { testDir } from '../stores/temp-dir.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';

beforeAll(assertRealAgentsInstalled);

const path = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;

/** A session whose agent is the real claude, answered by `script`; resolves once it waits for a person. */
async function claudeSession(serve: ServeProcess, dir: string, id: string, script: Reply[]) {
  const session = await startClaudeSession(serve, dir, id, script);
  const waiting = await runWhen(serve, id, (run) => run.state === 'waiting_input' || run.status !== 'active');
  return { ...session, waiting };
}

/** A person's decision on the session's first approval, through the API. */
async function decide(serve: ServeProcess, id: string, waiting: any, decision: string, comment?: string) {
  const event = { type: 'APPROVAL_RESOLVED', approval_id: waiting.context.approvals[0].approval_id, decision };
  const { status } = await api(serve.url, 'POST', `${path(id)}/events`, {
    event: { ...event, ...(comment && { comment }) },
    actor: 'alice',
  });
  expect(status).toBe(200);
}

const bash = bashThenFinish;

it('a real claude waits for the approve tool: approved, its Bash runs; denied, it does not and the model reads why', async () => {
  const dir = testDir('mcp-claude');
  const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);

  const approved = await claudeSession(serve, dir, 'c-approve', bash('echo approved > approved.txt'));
  expect(approved.waiting.state, JSON.stringify(approved.waiting.context)).toBe('waiting_input');
  expect(approved.waiting.context.approvals).toEqual([
    expect.objectContaining({
      tool_name: 'Bash',
      tool_input: expect.objectContaining({ command: 'echo approved > approved.txt' }),
      tool_use_id: expect.any(String),
      status: 'pending',
    }),
  ]);
  expect(existsSync(join(approved.work, 'approved.txt'))).toBe(false);
  await decide(serve, 'c-approve', approved.waiting, 'approved');
  const done = await runWhen(serve, 'c-approve', (run) => run.status !== 'active');
  expect(done.state, JSON.stringify(done.context)).toBe('completed');
  expect(readFileSync(join(approved.work, 'approved.txt'), 'utf8')).toBe('approved\n');
  approved.model.assertAllAnswered();

  const denied = await claudeSession(serve, dir, 'c-deny', bash('echo denied > denied.txt'));
  expect(denied.waiting.state).toBe('waiting_input');
  await decide(serve, 'c-deny', denied.waiting, 'denied', 'not in this folder');
  const ended = await runWhen(serve, 'c-deny', (run) => run.status !== 'active');
  expect(ended.state, JSON.stringify(ended.context)).toBe('completed');
  expect(existsSync(join(denied.work, 'denied.txt'))).toBe(false);
  // Claude reports the call it did not run in its result's permission_denials: recorded on the session.
  expect(ended.context.permission_denials).toEqual([
    expect.objectContaining({
      tool_name: 'Bash',
      tool_use_id: denied.waiting.context.approvals[0].tool_use_id,
      tool_input: expect.objectContaining({ command: 'echo denied > denied.txt' }),
    }),
  ]);
  // The tool's result the model got back carries the person's words.
  expect(denied.model.requests[1]!.texts.join('\n')).toContain('not in this folder');
  denied.model.assertAllAnswered();
});
