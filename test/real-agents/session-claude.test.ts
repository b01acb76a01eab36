/**
 * Sessions whose agent is the real `claude` (config.command = the CLI, its flags from the session's
 * config), through the session daemon on SQLite, against the scripted model server: text, a tool
 * call it really runs, an interrupt with a real SIGINT, a continued session that resumes the
 * parent's conversation (its cost its own, not the conversation's), an HTTP 529 error result, and
 * 529s that Claude retries (the session says it is retrying, not just running).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { SessionConfig, SessionContext } from '../../machines/session/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { isSameProcessAlive } from '../../src/os/process-identity.js';
import type { CommittedStep } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/index.js';
import { reaches, startDaemon } from '../support/session-daemon.js';
import { until } from '../support/until.js';
import { ModelServer, type Reply } from './model-server/model-server.js';
import { assertRealAgentsInstalled, CLAUDE_BIN, claudeEnv, type ClaudeEnvOptions } from './real-agents.js';

/** Claude 2.1.328's list prices for the scripted model, USD per token: what its own cost figures come to. */
const CLAUDE_INPUT = 4 / 1e6;
const CLAUDE_OUTPUT = 20 / 1e6;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(assertRealAgentsInstalled);

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A daemon on SQLite, a model server answering `script`, and the config of a session with the real claude. */
async function claudeSessions(script: Reply[], env: Omit<ClaudeEnvOptions, 'home'> = {}) {
  const server = await ModelServer.start(script);
  cleanups.push(() => server.close());
  const dir = tempDir('session-claude-');
  const store = sqliteStore(join(dir, 'state.db'));
  const daemon = await startDaemon({
    store,
    logDir: join(dir, 'sessions'),
    agent: createAgentProcess({ pollMs: 20 }),
    activity: false,
  });
  cleanups.push(async () => {
    await daemon.close({ timeoutMs: 2_000 });
    await daemon.runtime.close();
    await store.close();
  });
  const steps: CommittedStep[] = [];
  cleanups.push(daemon.runtime.subscribe((step) => steps.push(step)));
  // Claude keeps its conversations under HOME, and a resume finds them under the working folder.
  const config: SessionConfig = {
    command: [CLAUDE_BIN],
    working_dir: tempDir('session-claude-work-'),
    env: claudeEnv(server, { home: tempDir('session-claude-home-'), ...env }),
  };
  return { server, daemon, config, steps, database: join(dir, 'state.db') };
}

/** The session's record right after each committed event of `type`. */
const after = (steps: CommittedStep[], id: string, type: string) =>
  steps
    .filter((step) => step.runId === id && step.event?.type === type)
    .map((step) => step.snapshot.context as SessionContext);

/**
 * Session s1 with claude in the middle of an answer the model server holds open, once claude has
 * read the call's start (its usage: 1,000 input tokens), so the call has a cost.
 */
async function claudeMidAnswer() {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  const { daemon, config, server } = await claudeSessions([
    { blocks: [{ text: 'A long answer' }], usage: { input: 1000, output: 300 }, hold, holdAfterEvents: 3 },
  ]);
  cleanups.push(release);
  await daemon.launch({ id: 's1', query: 'Explain everything', config });
  await reaches(daemon, 's1', ['running']);
  await server.received(1);
  const { agent } = await daemon.get('s1');
  await until('claude to pass on the message_start', () =>
    readFileSync(agent!.log_path, 'utf8').includes('"message_start"'),
  );
  return { daemon, agent: agent! };
}

describe('a session with a real claude as its agent', () => {
  test('text: completed with its own cost, its summary, and each message’s final tokens as they come', async () => {
    const { daemon, config, steps, server } = await claudeSessions([
      { blocks: [{ text: 'The failing test passes now.' }], usage: { input: 100, output: 500 } },
    ]);
    await daemon.launch({ id: 's1', query: 'Make the failing test pass', config });
    await reaches(daemon, 's1', ['completed', 'failed']);
    const session = await daemon.get('s1');
    expect(session).toMatchObject({
      status: 'completed',
      summary: 'The failing test passes now.',
      total_tokens: 600,
      error_message: null,
      exit: { code: 0 },
    });
    expect(session.claude_session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.cost_usd).toBeCloseTo(100 * CLAUDE_INPUT + 500 * CLAUDE_OUTPUT, 10);
    // Before the result, the message already counted its 500 output tokens (not message_start's 1).
    expect(after(steps, 's1', 'agent.assistant').map((c) => c.tokens.output)).toEqual([500]);
    server.assertAllAnswered();
  });

  test('a tool call it really runs (allowed by the session’s config), then its answer', async () => {
    const { daemon, config, server } = await claudeSessions([
      { blocks: [{ tool: 'Bash', input: { command: 'echo fixed > fix.txt', description: 'fix it' } }] },
      { blocks: [{ text: 'Fixed it.' }] },
    ]);
    await daemon.launch({ id: 's1', query: 'Fix it', config: { ...config, allowed_tools: ['Bash'] } });
    await reaches(daemon, 's1', ['completed', 'failed']);
    expect(await daemon.get('s1')).toMatchObject({ status: 'completed', summary: 'Fixed it.' });
    expect(readFileSync(join(config.working_dir!, 'fix.txt'), 'utf8')).toBe('fixed\n');
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain('tool_result');
  });

  test('interrupt: a real SIGINT to claude mid-answer fails the session with the cost claude reported on its way out', async () => {
    const { daemon, agent } = await claudeMidAnswer();
    const interrupted = await daemon.interrupt('s1', { reason: 'enough' });
    expect(interrupted).toMatchObject({ status: 'failed', error_message: 'Interrupted: enough', exit: { code: 0 } });
    // Claude's result after SIGINT: the aborted call's 1,000 input tokens (and its few output tokens).
    expect(interrupted.cost_usd).toBeCloseTo(1000 * CLAUDE_INPUT, 3);
    expect(interrupted.cost_usd).toBeGreaterThan(0);
    await until('claude to exit on its SIGINT', () => !isSameProcessAlive(agent.pid, agent.pid_start), 5_000);
  });

  test('a person’s INTERRUPT (the view’s button, `statewright send`, POST /api/runs/:id/events): the session waits for claude’s last words and keeps the cost', async () => {
    const { daemon, agent } = await claudeMidAnswer();
    // What serve's event route does with the view's (or the CLI's) INTERRUPT: dispatch it as sent.
    const asked = await daemon.runtime.dispatch(
      's1',
      { type: 'INTERRUPT', reason: 'enough' },
      { actor: 'alice', reason: 'the interrupt button' },
    );
    expect(asked.value).toBe('running');
    await reaches(daemon, 's1', ['failed', 'completed']);
    const session = await daemon.get('s1');
    // Failed by claude's own exit 0 after SIGINT, with the cost of the call it aborted.
    expect(session).toMatchObject({ status: 'failed', error_message: 'Interrupted: enough', exit: { code: 0 } });
    expect(session.cost_usd).toBeCloseTo(1000 * CLAUDE_INPUT, 3);
    expect(session.cost_usd).toBeGreaterThan(0);
    await until('claude to exit on its SIGINT', () => !isSameProcessAlive(agent.pid, agent.pid_start), 5_000);
  });

  test('daemon shutdown: claude mid-answer gets SIGINT and the failed session keeps the cost it reported on its way out', async () => {
    const { daemon, agent } = await claudeMidAnswer();
    await daemon.close({ timeoutMs: 5_000 });
    expect(isSameProcessAlive(agent.pid, agent.pid_start)).toBe(false);
    const session = await daemon.get('s1');
    // Failed by claude's exit 0 after SIGINT, not by INTERRUPT (which records no exit).
    expect(session).toMatchObject({
      status: 'failed',
      error_message: 'Interrupted: daemon shutdown',
      exit: { code: 0 },
    });
    expect(session.cost_usd).toBeCloseTo(1000 * CLAUDE_INPUT, 3);
    expect(session.cost_usd).toBeGreaterThan(0);
  });

  test('continue: the child resumes the parent’s conversation, and its cost and tokens are its own', async () => {
    const { daemon, config, server } = await claudeSessions([
      { blocks: [{ text: 'First answer.' }], usage: { input: 100, output: 500 } },
      { blocks: [{ text: 'Second answer.' }], usage: { input: 200, output: 700 } },
    ]);
    await daemon.launch({ id: 'parent', query: 'First question', config });
    await reaches(daemon, 'parent', ['completed', 'failed']);
    const child = await daemon.continue('parent', { id: 'child', query: 'Second question' });
    expect(child).toMatchObject({ parent_session_id: 'parent', resume_claude_session_id: expect.any(String) });
    await reaches(daemon, 'child', ['completed', 'failed']);
    const [parent, done] = [await daemon.get('parent'), await daemon.get('child')];
    expect(done).toMatchObject({ status: 'completed', summary: 'Second answer.', total_tokens: 900 });
    // Claude's total_cost_usd after --resume is 0.0252 (both turns): the child spent 0.0148 of it.
    expect(parent.cost_usd).toBeCloseTo(100 * CLAUDE_INPUT + 500 * CLAUDE_OUTPUT, 10);
    expect(done.cost_usd).toBeCloseTo(200 * CLAUDE_INPUT + 700 * CLAUDE_OUTPUT, 10);
    // The second call carried the first turn: a real resume.
    expect(server.requests[1]!.texts.join('\n')).toContain('First question');
  });

  test('an HTTP 529: the session fails with Claude’s own error text', async () => {
    const { daemon, config } = await claudeSessions([{ status: 529, errorMessage: 'Overloaded' }]);
    await daemon.launch({ id: 's1', query: 'q', config });
    await reaches(daemon, 's1', ['completed', 'failed']);
    const session = await daemon.get('s1');
    expect(session).toMatchObject({ status: 'failed', exit: { code: 1 } });
    expect(session.error_message).toMatch(/^Claude reported an error: API Error: 529 Overloaded/);
    expect(session.tokens).toEqual({ input: 0, output: 0, cache_read: 0, cache_creation: 0 });
  });

  test('529s that claude retries: the session says it is retrying until the answer comes', async () => {
    const { daemon, config, steps } = await claudeSessions(
      [{ status: 529, errorMessage: 'Overloaded', times: 2 }, { blocks: [{ text: 'Answered at last.' }] }],
      { maxRetries: 3 },
    );
    await daemon.launch({ id: 's1', query: 'q', config });
    await reaches(daemon, 's1', ['completed', 'failed']);
    expect(after(steps, 's1', 'agent.retrying').map((c) => c.retrying)).toEqual([
      expect.objectContaining({ attempt: 1, max_retries: 3, error_status: 529, error: 'overloaded' }),
      expect.objectContaining({ attempt: 2, max_retries: 3, error_status: 529, error: 'overloaded' }),
    ]);
    expect(await daemon.get('s1')).toMatchObject({ status: 'completed', retrying: null });
  });

  test('a 1.5 MB reply grows the SQLite file by under 1.5 MB, not 27 MB: reported texts are bounded, the agent’s log keeps the whole', async () => {
    const reply = Array.from({ length: 320_000 }, (_, i) => `w${i % 1000}`)
      .join(' ')
      .slice(0, 1_500_000);
    const { daemon, config, database } = await claudeSessions([
      { blocks: [{ text: reply }], usage: { input: 100, output: 400_000 } },
    ]);
    // The file with its write-ahead log: what the disk holds while the daemon runs.
    const bytes = () =>
      ['', '-wal'].reduce((sum, end) => sum + (existsSync(database + end) ? statSync(database + end).size : 0), 0);
    const before = bytes();
    await daemon.launch({ id: 's1', query: 'Write a lot', config });
    await reaches(daemon, 's1', ['completed', 'failed']);
    // Before the texts were bounded: 27 MB (16.4 MB once checkpointed); now about 0.7 MB.
    expect(bytes() - before).toBeLessThan(1_500_000);
    const session = await daemon.get('s1');
    expect(session.status).toBe('completed');
    const text = session.result!.text;
    expect(text.length).toBeLessThan(40_000);
    expect(reply.startsWith(text.slice(0, 1_000))).toBe(true);
    expect(reply.endsWith(text.slice(-1_000))).toBe(true);
    expect(text).toContain("characters cut here; the whole text is in the agent's log");
    expect(readFileSync(session.agent!.log_path, 'utf8')).toContain(reply);
  });
});
