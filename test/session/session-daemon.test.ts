/**
 * The session daemon's operations on SQLite, with the agent's reports sent by the test (the real
 * agent process is exercised in session-agents.test.ts): status changes after commit, idempotent
 * duplicates, the audit trail, continue, the activity monitor on the log channel, the orphan sweep.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromCallback } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { ContinueSessionError, SESSION_DECISIONS_ENV, SessionTransitionError } from '../../machines/session/index.js';
import { ManualClock, UnknownRunError, type LogEntry } from '../../src/runtime/index.js';
import { ApprovalNotPendingError } from '../../src/session/session-daemon.js';
import { startDaemon, type DaemonOptions } from '../support/session-daemon.js';
import type { SessionStatusChanged } from '../../src/session/status-changed.js';
import { sqliteStore } from '../../src/stores/index.js';
import { ev, T0 } from '../machines/session-fixtures.js';
import { tempDir } from '../stores/temp-dir.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Records what each session's agent was started with; starts nothing. */
function agentRecorder() {
  const started: Array<{ runId: string; input: any }> = [];
  return {
    started,
    agent: (run: { runId: string }) =>
      fromCallback<any, any>(({ input }) => void started.push({ runId: run.runId, input })),
  };
}

async function setup(overrides: Partial<DaemonOptions> = {}) {
  const dir = await tempDir('session-daemon');
  cleanups.push(() => dir.remove());
  const path = join(dir.path, 'state.db');
  const clock = new ManualClock(T0);
  const logs: LogEntry[] = [];
  const agents = agentRecorder();
  /** A daemon on the file; `crashes` leaves its closing to the test. */
  const open = async (more: Partial<DaemonOptions> = {}, crashes = false) => {
    const store = sqliteStore(path);
    const daemon = await startDaemon({
      store,
      logDir: join(dir.path, 'logs'),
      clock,
      agent: agents.agent,
      activity: false,
      onLog: (e) => logs.push(e),
      ...overrides,
      ...more,
    });
    if (!crashes) {
      cleanups.push(async () => {
        await daemon.close({ timeoutMs: 0 });
        await daemon.runtime.close();
        await store.close();
      });
    }
    return { daemon, store };
  };
  return { dir: dir.path, path, clock, logs, agents, open };
}

describe('the session daemon', () => {
  it('publishes session_status_changed for each status change, only once the change is in the store', async () => {
    const { open } = await setup();
    const { daemon, store } = await open();
    const seen: Array<{ change: SessionStatusChanged; stored: Promise<unknown> }> = [];
    daemon.onStatusChanged((change) =>
      seen.push({ change, stored: store.load(change.session_id).then((r) => r?.state) }),
    );
    await daemon.launch({ id: 's1', query: 'Fix the build' });
    await daemon.runtime.dispatch('s1', ev.spawned());
    await daemon.runtime.dispatch('s1', ev.session());
    const { approval } = await daemon.requestApproval('s1', { tool_name: 'Bash', tool_input: { command: 'make' } });
    await daemon.approve('s1', approval.approval_id);
    await daemon.runtime.dispatch('s1', ev.assistant(T0 + 5_000));
    await daemon.interrupt('s1');
    expect(seen.map((s) => s.change)).toEqual([
      { type: 'session_status_changed', session_id: 's1', old_status: 'starting', new_status: 'running' },
      { type: 'session_status_changed', session_id: 's1', old_status: 'running', new_status: 'waiting_input' },
      { type: 'session_status_changed', session_id: 's1', old_status: 'waiting_input', new_status: 'running' },
      { type: 'session_status_changed', session_id: 's1', old_status: 'running', new_status: 'failed' },
    ]);
    expect(await Promise.all(seen.map((s) => s.stored))).toEqual(['running', 'waiting_input', 'running', 'failed']);
  });

  it('answers a duplicate request with the first result and applies nothing; a conflicting one is refused', async () => {
    const { open, dir } = await setup();
    const { daemon } = await open();
    const first = await daemon.launch({ id: 's1', query: 'Fix the build', config: { model: 'opus' } });
    expect(await daemon.launch({ id: 's1', query: 'Fix the build' })).toEqual(first);
    await expect(daemon.launch({ id: 's1', query: 'Something else' })).rejects.toThrow(
      /A run with id 's1' already exists/,
    );
    await daemon.runtime.dispatch('s1', ev.session());

    const request = { tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: 'toolu_1' };
    const asked = await daemon.requestApproval('s1', request);
    const askedAgain = await daemon.requestApproval('s1', request);
    expect(askedAgain.approval).toEqual(asked.approval);
    expect((await daemon.get('s1')).approvals).toHaveLength(1);

    const approved = await daemon.approve('s1', asked.approval.approval_id, { comment: 'ok' });
    expect(await daemon.approve('s1', asked.approval.approval_id, { comment: 'ok' })).toEqual(approved);
    await expect(daemon.deny('s1', asked.approval.approval_id)).rejects.toThrow(ApprovalNotPendingError);
    await expect(daemon.deny('s1', asked.approval.approval_id)).rejects.toThrow(
      `Cannot mark approval ${asked.approval.approval_id} of session s1 denied: it is already approved (at ${new Date(T0).toISOString()}); the session is running, pending approvals: none.`,
    );
    await expect(daemon.approve('s1', asked.approval.approval_id, { comment: 'ok, but only once' })).rejects.toThrow(
      /it is already approved/,
    );
    await expect(daemon.approve('s1', 'nope')).rejects.toThrow(
      'Cannot mark approval nope of session s1 approved: the session has no such approval; the session is running, pending approvals: none.',
    );

    await daemon.launch({ id: 'fresh', query: 'q' });
    await expect(daemon.requestApproval('fresh', { tool_name: 'Bash', tool_input: {} })).rejects.toThrow(
      SessionTransitionError,
    );
    await expect(daemon.requestApproval('fresh', { tool_name: 'Bash', tool_input: {} })).rejects.toThrow(
      'Invalid transition: starting → waiting_input',
    );

    const interrupted = await daemon.interrupt('s1', { reason: 'user pressed ctrl-c' });
    expect(await daemon.interrupt('s1', { reason: 'user pressed ctrl-c' })).toEqual(interrupted);
    expect(interrupted).toMatchObject({ status: 'failed', error_message: 'Interrupted: user pressed ctrl-c' });
    // Not a repeat (another key): refused in the seed's words.
    await expect(daemon.interrupt('s1', { idempotencyKey: 'second press' })).rejects.toThrow(
      'Cannot transition from terminal state: failed',
    );

    // No agent was spawned: the first INTERRUPT fails the session (nothing to wait for).
    const types = (await daemon.history('s1')).map((e) => e.event.type);
    expect(types).toEqual(['agent.session', 'APPROVAL_REQUESTED', 'APPROVAL_RESOLVED', 'INTERRUPT']);
    // The decision was handed to the agent once, where its environment says.
    const decisions = readFileSync(join(dir, 'logs', 's1.jsonl.decisions'), 'utf8');
    expect(decisions).toBe(
      `${JSON.stringify({ approval_id: asked.approval.approval_id, decision: 'approved', comment: 'ok' })}\n`,
    );
  });

  it('keeps every transition in the audit trail with its time, actor and reason', async () => {
    const { open, clock } = await setup();
    const { daemon } = await open();
    await daemon.launch({ id: 's1', query: 'Fix the build' });
    clock.advance(1_000);
    await daemon.runtime.dispatch('s1', ev.session(clock.now()), {
      actor: 'agent',
      reason: 'Claude reported its session id',
    });
    clock.advance(1_000);
    await daemon.requestApproval(
      's1',
      { approval_id: 'a1', tool_name: 'Edit', tool_input: { file: 'x' } },
      { actor: 'mcp:permission-prompt' },
    );
    clock.advance(1_000);
    await daemon.deny('s1', 'a1', { actor: 'alice', comment: 'not that file' });
    clock.advance(1_000);
    await daemon.interrupt('s1', { actor: 'alice', reason: 'done for today' });
    const trail = (await daemon.history('s1')).map((e) => ({
      at: e.at - T0,
      from: e.before,
      to: e.after,
      actor: e.actor,
      reason: e.reason,
    }));
    expect(trail).toEqual([
      { at: 1_000, from: 'starting', to: 'running', actor: 'agent', reason: 'Claude reported its session id' },
      {
        at: 2_000,
        from: 'running',
        to: 'waiting_input',
        actor: 'mcp:permission-prompt',
        reason: 'Edit needs approval',
      },
      { at: 3_000, from: 'waiting_input', to: 'running', actor: 'alice', reason: 'approval a1 denied' },
      { at: 4_000, from: 'running', to: 'failed', actor: 'alice', reason: 'done for today' },
    ]);
  });

  it('continues a finished session as a child that resumes its Claude session with its configuration; the parent is not changed', async () => {
    const { open, agents } = await setup();
    const { daemon } = await open();
    const config = { model: 'opus', working_dir: '/src/app', max_turns: 3, allowed_tools: ['Read'], env: { A: '1' } };
    await daemon.launch({ id: 'parent', query: 'Fix the build', config });
    await expect(daemon.continue('parent', { query: 'And the tests' })).rejects.toThrow(ContinueSessionError);
    await daemon.runtime.dispatch('parent', ev.session(T0 + 1_000, 'claude-parent'));
    await expect(daemon.continue('parent', { query: 'And the tests' })).rejects.toThrow(
      'Cannot continue session parent with status running (must be completed or failed; wait for it to finish, or interrupt it first)',
    );
    await daemon.runtime.dispatch('parent', ev.result(T0 + 2_000));
    await daemon.runtime.dispatch('parent', ev.exited(T0 + 3_000, 0));
    const parentBefore = await daemon.runtime.getSnapshot('parent');

    const child = await daemon.continue('parent', { id: 'child', query: 'And the tests', config: { model: 'sonnet' } });
    expect(child).toMatchObject({
      session_id: 'child',
      status: 'starting',
      parent_session_id: 'parent',
      resume_claude_session_id: 'claude-parent',
      config: { model: 'sonnet', working_dir: '/src/app', allowed_tools: ['Read'], env: { A: '1' } },
    });
    expect(child.config.max_turns).toBeUndefined();
    expect(await daemon.continue('parent', { id: 'child', query: 'And the tests' })).toEqual(child);
    expect(await daemon.runtime.getSnapshot('parent')).toEqual(parentBefore);
    // The child's agent resumes the parent's conversation.
    const childAgent = agents.started.find((s) => s.runId === 'child')!.input;
    expect(childAgent.command).toEqual(
      expect.arrayContaining(['--resume', 'claude-parent', '--fork-session', '--model', 'sonnet']),
    );
    expect(childAgent.env).toEqual({
      A: '1',
      [SESSION_DECISIONS_ENV]: expect.stringMatching(/child\.jsonl\.decisions$/),
    });
  });

  it("refuses to continue a parent without a working directory with hld's message, and starts nothing", async () => {
    const { open, agents } = await setup();
    const { daemon } = await open();
    await daemon.launch({ id: 'parent', query: 'Fix the build', config: { model: 'opus' } });
    await daemon.runtime.dispatch('parent', ev.session(T0 + 1_000, 'claude-parent'));
    await daemon.runtime.dispatch('parent', ev.result(T0 + 2_000));
    await daemon.runtime.dispatch('parent', ev.exited(T0 + 3_000, 0));
    const parentBefore = await daemon.runtime.getSnapshot('parent');

    const attempt = daemon.continue('parent', { id: 'child', query: 'And the tests' });
    await expect(attempt).rejects.toThrow(ContinueSessionError);
    await expect(attempt).rejects.toThrow(
      'parent session missing working_dir (cannot resume session without working directory)',
    );
    // Not in the daemon's folder either: a working directory given for the child is not the parent's.
    await expect(
      daemon.continue('parent', { id: 'child', query: 'And the tests', config: { working_dir: process.cwd() } }),
    ).rejects.toThrow('parent session missing working_dir');
    await expect(daemon.get('child')).rejects.toThrow(UnknownRunError);
    expect(agents.started.map((s) => s.runId)).toEqual(['parent']);
    expect(await daemon.runtime.getSnapshot('parent')).toEqual(parentBefore);
  });

  it('refuses to continue a parent that does not exist, or is not a session, saying so', async () => {
    const { open } = await setup();
    const { daemon } = await open();
    const missing = daemon.continue('nobody', { id: 'child', query: 'q' });
    await expect(missing).rejects.toThrow(ContinueSessionError);
    await expect(missing).rejects.toThrow(
      'Cannot continue session nobody: there is no such session; check the id with terminalSessions() or activeSessions()',
    );
    await daemon.runtime.start('execution', { id: 'ci-run' });
    const other = daemon.continue('ci-run', { id: 'child', query: 'q' });
    await expect(other).rejects.toThrow(ContinueSessionError);
    await expect(other).rejects.toThrow(
      'Cannot continue session ci-run: it is a run of the execution lifecycle, not a session; continue the id of a session',
    );
    await expect(daemon.get('child')).rejects.toThrow(UnknownRunError);
  });

  it('warns about quiet sessions on the runtime log channel', async () => {
    const { open, clock, logs } = await setup();
    const { daemon } = await open({ activity: { inactivityLimitMs: 60_000 } });
    await daemon.launch({ id: 's1', query: 'Fix the build' });
    await daemon.runtime.dispatch('s1', ev.session(T0));
    for (let i = 0; i < 3; i++) {
      clock.advance(30_000);
      await new Promise((r) => setImmediate(r));
    }
    expect(logs.filter((l) => l.level === 'warn')).toEqual([
      {
        runId: 's1',
        level: 'warn',
        message: 'Session s1 inactive for 1m 30s',
        data: { status: 'running', last_activity_at: T0, inactive_ms: 90_000 },
      },
    ]);
  });

  it('shuts down gracefully: every active session it hosts is interrupted, finished ones are left alone', async () => {
    const { open } = await setup();
    const { daemon, store } = await open();
    await daemon.launch({ id: 'running', query: 'q' });
    await daemon.runtime.dispatch('running', ev.session());
    await daemon.launch({ id: 'waiting', query: 'q' });
    await daemon.runtime.dispatch('waiting', ev.session());
    await daemon.requestApproval('waiting', { approval_id: 'a1', tool_name: 'Bash', tool_input: {} });
    await daemon.launch({ id: 'done', query: 'q' });
    await daemon.runtime.dispatch('done', ev.session());
    await daemon.interrupt('done');
    const doneBefore = await store.load('done');
    await daemon.close();
    const state = async (id: string) => (await store.load(id))!;
    expect((await state('running')).snapshot).toMatchObject({
      value: 'failed',
      context: { error_message: 'Interrupted: daemon shutdown' },
    });
    expect((await state('waiting')).snapshot).toMatchObject({
      value: 'failed',
      context: { error_message: 'Interrupted while waiting for approval' },
    });
    expect(await state('done')).toEqual(doneBefore);
    expect((await store.history('running')).at(-1)).toMatchObject({ actor: 'daemon', reason: 'graceful shutdown' });
  });

  it('fails the sessions a previous daemon left active when it starts on the same SQLite file, without announcing it', async () => {
    const { open, clock } = await setup();
    const first = await open({ owner: 'first' }, true);
    await first.daemon.launch({ id: 'starting', query: 'q' });
    await first.daemon.launch({ id: 'running', query: 'q' });
    await first.daemon.runtime.dispatch('running', ev.session());
    await first.daemon.launch({ id: 'done', query: 'q' });
    await first.daemon.runtime.dispatch('done', ev.session());
    await first.daemon.interrupt('done');
    // The first daemon stops without its graceful shutdown, as a crash would leave it.
    await first.daemon.runtime.close();
    await first.store.close();

    clock.advance(30_000);
    const second = await open({ owner: 'second' });
    const changes: SessionStatusChanged[] = [];
    second.daemon.onStatusChanged((c) => changes.push(c));
    expect((await second.daemon.terminalSessions()).map((s) => [s.session_id, s.error_message])).toEqual([
      ['running', 'Session orphaned due to daemon restart'],
      ['starting', 'Session orphaned due to daemon restart'],
      ['done', 'Interrupted'],
    ]);
    expect(await second.daemon.activeSessions()).toEqual([]);
    expect((await second.daemon.history('running')).at(-1)).toMatchObject({
      event: { type: 'SESSION_ORPHANED', at: T0 + 30_000 },
      actor: 'recovery',
    });
    expect(changes).toEqual([]);
  });
});
