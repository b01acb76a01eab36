/**
 * A pending approval outlives its serve: a real Claude (test/real-agents) waits in waiting_input on
 * a real `statewright serve` for a person; serve is stopped (SIGTERM, the hand-over, or SIGKILL, a
 * crash) while Claude's permission prompt call is open, and a new serve is started on the same
 * store with the same token (on another port: `statewright mcp` finds it beside the store). The
 * session is still waiting_input there, the person approves through the API, Claude gets the answer
 * and its Bash command writes the file. Needs `npm run build`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { assertRealAgentsInstalled } from './real-agents.js';
import { bashThenFinish, runWhen, startClaudeSession } from './served-claude-session.js';
import { testDir } from '../stores/temp-dir.js';
import { api, startServeProcess } from '../support/serve-process.js';

beforeAll(assertRealAgentsInstalled);

const TOKEN = 'approval-restart-token-0123456789abcdef';

it.each(['SIGTERM', 'SIGKILL'] as const)(
  'an approval pending when serve gets %s is decided on the next serve, and Claude gets the answer',
  async (signal) => {
    const dir = testDir(`approval-${signal.toLowerCase()}`);
    const store = ['--store', `sqlite:${join(dir, 'state.db')}`];
    const first = await startServeProcess(dir, [...store, '--create'], { STATEWRIGHT_TOKEN: TOKEN });
    const id = `claude-${signal.toLowerCase()}`;
    const session = await startClaudeSession(first, dir, id, bashThenFinish('echo approved > approved.txt'));
    const waiting = await runWhen(first, id, (run) => run.state === 'waiting_input' || run.status !== 'active');
    expect(waiting.state, JSON.stringify(waiting.context)).toBe('waiting_input');
    const pid = waiting.context.agent.pid as number;

    await first.stop(signal);
    const next = await startServeProcess(dir, store, { STATEWRIGHT_TOKEN: TOKEN });
    expect(next.url).not.toBe(first.url);
    // Still waiting for the person, the same agent adopted: not orphaned, not ended by an error answer.
    const restored = await runWhen(next, id, () => true);
    expect(restored.state, JSON.stringify(restored.context)).toBe('waiting_input');
    expect(restored.context.agent.pid).toBe(pid);
    expect(existsSync(join(session.work, 'approved.txt'))).toBe(false);

    const [approval] = restored.context.approvals;
    expect(approval).toMatchObject({ tool_name: 'Bash', status: 'pending' });
    const resolved = await api(next.url, 'POST', `/api/runs/${id}/events`, {
      event: { type: 'APPROVAL_RESOLVED', approval_id: approval.approval_id, decision: 'approved' },
      actor: 'alice',
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const done = await runWhen(next, id, (run) => run.status !== 'active');
    expect(done.state, JSON.stringify(done.context)).toBe('completed');
    expect(readFileSync(join(session.work, 'approved.txt'), 'utf8')).toBe('approved\n');
    // Claude's own figures reached the session.
    expect(done.context.cost_usd).toBeGreaterThan(0);
    session.model.assertAllAnswered();
    await next.stop('SIGTERM');
  },
);
