/**
 * Sessions with real agent processes (the POSIX sh stand-ins in examples/agents/) through the
 * session daemon on SQLite: launch to completion or failure, approvals the agent waits for,
 * interrupt with a real SIGINT, and a daemon killed with SIGKILL whose successor fails its orphans.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromCallback } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { ContinueSessionError } from '../../machines/session/index.js';
import { createAgentProcess } from '../../src/actors/agent-process.js';
import { isSameProcessAlive, signalGroup } from '../../src/os/process-identity.js';
import { UnknownRunError } from '../../src/runtime/index.js';
import { reaches, startDaemon, type DaemonOptions } from '../support/session-daemon.js';
import { sqliteStore } from '../../src/stores/index.js';
import { tempDir } from '../stores/temp-dir.js';
import { builtProgram, endWithTest } from '../support/child-processes.js';

const agent = (name: string) => fileURLToPath(new URL(`../../examples/agents/${name}.sh`, import.meta.url));
const CHILD = new URL('./daemon-child.ts', import.meta.url);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function daemonOn(path?: string, more: Partial<DaemonOptions> = {}) {
  const dir = await tempDir('session-agents');
  cleanups.push(() => dir.remove());
  const store = sqliteStore(path ?? join(dir.path, 'state.db'));
  const daemon = await startDaemon({
    store,
    logDir: join(dir.path, 'sessions'),
    agent: createAgentProcess({ pollMs: 20 }),
    activity: false,
    ...more,
  });
  cleanups.push(async () => {
    await daemon.close({ timeoutMs: 2_000 });
    await daemon.runtime.close();
    await store.close();
  });
  return { daemon, dir: dir.path };
}

const gone = async (pid: number, start: string, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (isSameProcessAlive(pid, start)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
};

describe('sessions with real agent processes', () => {
  it('run to completion: the session id from the init message, cost and tokens from the result, every step audited', async () => {
    const { daemon } = await daemonOn();
    await daemon.launch({
      id: 's1',
      query: 'Make the tests pass',
      config: { command: [agent('succeed')], env: { STANDIN_SESSION_ID: 'claude-abc', STANDIN_COST: '0.25' } },
    });
    await reaches(daemon, 's1', ['completed', 'failed']);
    const session = await daemon.get('s1');
    expect(session).toMatchObject({
      status: 'completed',
      claude_session_id: 'claude-abc',
      cost_usd: 0.25,
      summary: 'Done.',
      error_message: null,
      exit: { code: 0 },
    });
    expect(session.total_tokens).toBeGreaterThan(0);
    const trail = (await daemon.history('s1')).filter((e) => e.before !== e.after);
    expect(trail.map((e) => [e.before, e.after, e.actor])).toEqual([
      ['starting', 'running', 'agent'],
      ['running', 'completed', 'agent'],
    ]);
    expect(trail.map((e) => e.reason)).toEqual([
      expect.stringMatching(/^stream-json line at byte 0 of the agent log$/),
      'the agent exited with code 0',
    ]);
  });

  it('fail with the exit reason when the agent exits non-zero', async () => {
    const { daemon } = await daemonOn();
    await daemon.launch({ id: 's1', query: 'q', config: { command: [agent('fail')] } });
    await reaches(daemon, 's1', ['completed', 'failed']);
    expect(await daemon.get('s1')).toMatchObject({
      status: 'failed',
      error_message: 'Claude reported an error: The task failed.',
      exit: { code: 1 },
    });
  });

  for (const decision of ['approve', 'deny'] as const) {
    it(`hand the decision (${decision}) to the agent waiting for it, which then finishes`, async () => {
      const { daemon } = await daemonOn();
      await daemon.launch({ id: 's1', query: 'q', config: { command: [agent('session-approval')] } });
      await reaches(daemon, 's1', ['running']);
      const { approval } = await daemon.requestApproval('s1', {
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
      });
      expect((await daemon.sessionsAwaitingInput()).map((a) => a.session.session_id)).toEqual(['s1']);
      await daemon[decision]('s1', approval.approval_id);
      await reaches(daemon, 's1', ['completed', 'failed']);
      const verdict = decision === 'approve' ? 'approved' : 'denied';
      expect(await daemon.get('s1')).toMatchObject({
        status: 'completed',
        summary: `Tests pass; npm test was ${verdict}.`,
      });
    });
  }

  for (const waiting of [false, true]) {
    it(`interrupt a ${waiting ? 'session waiting for approval' : 'running session'} with a real SIGINT to its agent`, async () => {
      const { daemon, dir } = await daemonOn();
      const signals = join(dir, 'signals.log');
      await daemon.launch({
        id: 's1',
        query: 'q',
        config: { command: [agent('session-interruptible')], env: { STANDIN_SIGNAL_LOG: signals } },
      });
      await reaches(daemon, 's1', ['running']);
      if (waiting) await daemon.requestApproval('s1', { tool_name: 'Bash', tool_input: {} });
      const { agent: process_ } = await daemon.get('s1');
      const interrupted = await daemon.interrupt('s1', { reason: 'stop' });
      expect(interrupted).toMatchObject({
        status: 'failed',
        error_message: waiting ? 'Interrupted while waiting for approval' : 'Interrupted: stop',
      });
      expect(await gone(process_!.pid, process_!.pid_start)).toBe(true);
      // The agent got SIGINT, and exited on it before any SIGTERM.
      expect(readFileSync(signals, 'utf8')).toBe('INT\n');
    });
  }

  it('shut down gracefully: each active session is interrupted as interrupt() does, SIGINT first and failed on its agent’s exit; an agent that ignores it gets INTERRUPT after the grace and is killed at the timeout', async () => {
    const { daemon, dir } = await daemonOn(undefined, { interruptGraceMs: 1_000 });
    const log = (name: string) => join(dir, `${name}.signals`);
    await daemon.launch({
      id: 'polite',
      query: 'q',
      config: { command: [agent('session-interruptible')], env: { STANDIN_SIGNAL_LOG: log('polite') } },
    });
    await daemon.launch({
      id: 'stubborn',
      query: 'q',
      config: {
        command: [agent('session-interruptible')],
        env: { STANDIN_SIGNAL_LOG: log('stubborn'), STANDIN_IGNORE_SIGNALS: '1' },
      },
    });
    await Promise.all([reaches(daemon, 'polite', ['running']), reaches(daemon, 'stubborn', ['running'])]);
    const agents = await Promise.all(['polite', 'stubborn'].map(async (id) => (await daemon.get(id)).agent!));
    // The polite agent exits on its SIGINT within the 1 s grace (long enough for its trap on a
    // loaded machine); the stubborn one gets INTERRUPT's SIGINT at 1 s and SIGKILL at 3 s, before
    // the agent actor's SIGTERM (5 s after a signal).
    await daemon.close({ timeoutMs: 3000 });
    for (const a of agents) expect(isSameProcessAlive(a.pid, a.pid_start)).toBe(false);
    expect(readFileSync(log('polite'), 'utf8')).toBe('INT\n');
    expect(readFileSync(log('stubborn'), 'utf8')).toBe('INT\nINT\n'); // then SIGKILL, which no trap sees
    const failed = async (id: string) => (await daemon.runtime.store.load(id))!.snapshot;
    // Failed by its exit after the SIGINT (as interrupt() fails it): the exit, and what the agent reported, kept.
    expect(await failed('polite')).toMatchObject({
      value: 'failed',
      context: { error_message: 'Interrupted: daemon shutdown', exit: { code: 130 } },
    });
    expect(await failed('stubborn')).toMatchObject({
      value: 'failed',
      context: { error_message: 'Interrupted: daemon shutdown', exit: null },
    });
    expect((await daemon.history('polite')).filter((e) => e.actor === 'daemon').map((e) => e.event.type)).toEqual([
      'INTERRUPT_REQUESTED',
    ]);
    expect((await daemon.history('stubborn')).filter((e) => e.actor === 'daemon').map((e) => e.event.type)).toEqual([
      'INTERRUPT_REQUESTED',
      'INTERRUPT',
    ]);
  });

  it('continue an interrupted session only once its agent has exited, as hld waits before resuming the conversation', async () => {
    let announceWait!: () => void;
    const waiting = new Promise<void>((resolve) => (announceWait = resolve));
    const { daemon, dir } = await daemonOn(undefined, {
      onLog: (e) => e.runId === 'parent' && e.message.startsWith('waiting for agent') && announceWait(),
    });
    // An agent that ignores SIGINT and SIGTERM outlives its interrupted session.
    const config = {
      command: [agent('session-interruptible')],
      working_dir: dir,
      env: { STANDIN_SESSION_ID: 'claude-parent', STANDIN_IGNORE_SIGNALS: '1' },
    };
    await daemon.launch({ id: 'parent', query: 'Fix the build', config });
    await reaches(daemon, 'parent', ['running']);
    const parentAgent = (await daemon.get('parent')).agent!;
    endWithTest(parentAgent.pid);
    await daemon.interrupt('parent');

    const tooSoon = daemon.continue('parent', { id: 'child', query: 'And the tests', parentExitTimeoutMs: 0 });
    await expect(tooSoon).rejects.toThrow(ContinueSessionError);
    await expect(tooSoon).rejects.toThrow(
      `Cannot continue session parent yet: its agent (pid ${parentAgent.pid}) is still running after a wait of 0 ms, and may still be writing the conversation; continue once it has exited, or kill it first`,
    );

    const continued = daemon.continue('parent', {
      id: 'child',
      query: 'And the tests',
      config: { command: [agent('succeed')], env: { STANDIN_SESSION_ID: 'claude-child' } },
    });
    await waiting;
    await expect(daemon.get('child')).rejects.toThrow(UnknownRunError);
    signalGroup(parentAgent.pid, 'SIGKILL');
    const child = await continued;
    expect(isSameProcessAlive(parentAgent.pid, parentAgent.pid_start)).toBe(false);
    expect(child).toMatchObject({
      parent_session_id: 'parent',
      resume_claude_session_id: 'claude-parent',
      config: { working_dir: dir },
    });
    await reaches(daemon, 'child', ['completed', 'failed']);
    expect(await daemon.get('child')).toMatchObject({ status: 'completed', claude_session_id: 'claude-child' });
    expect(await daemon.get('parent')).toMatchObject({ status: 'failed', error_message: 'Interrupted' });
  });

  it('never spawns the agent of a session restored only to be failed as orphaned', async () => {
    const dir = await tempDir('session-no-respawn');
    cleanups.push(() => dir.remove());
    const path = join(dir.path, 'state.db');
    const marker = join(dir.path, 'spawned');
    // Each spawn of this agent leaves a line in `marker`.
    const config = { command: ['/bin/sh', '-c', `echo spawned >> ${marker}; exec "${agent('hang')}"`] };
    // The first daemon crashed after committing the launch, before its agent was spawned.
    const store = sqliteStore(path);
    const first = await startDaemon({
      store,
      logDir: join(dir.path, 'sessions'),
      agent: () => fromCallback(() => {}),
      activity: false,
    });
    await first.launch({ id: 's1', query: 'q', config });
    await first.runtime.close();
    await store.close();

    const { daemon } = await daemonOn(path);
    expect(await daemon.get('s1')).toMatchObject({
      status: 'failed',
      error_message: 'Session orphaned due to daemon restart',
    });
    // The same command does spawn for a new session, after the restored one would have: one line, s2's.
    await daemon.launch({ id: 's2', query: 'q', config });
    await reaches(daemon, 's2', ['running']);
    expect(readFileSync(marker, 'utf8')).toBe('spawned\n');
  });

  it('after a daemon is killed, the next one fails its sessions as orphaned and stops the agent it left running', async () => {
    const dir = await tempDir('session-restart');
    cleanups.push(() => dir.remove());
    const path = join(dir.path, 'state.db');
    const child = spawn(process.execPath, [builtProgram(CHILD), path, join(dir.path, 'sessions'), agent('hang')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    endWithTest(child.pid);
    const ready = await new Promise<{ pid: number; pid_start: string }>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      child.on('exit', (code) => reject(new Error(`daemon child exited with ${code} before it was ready`)));
    });
    endWithTest(ready.pid); // the agent leads its own group, which outlives the daemon
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(isSameProcessAlive(ready.pid, ready.pid_start)).toBe(true); // the agent outlived its daemon

    const { daemon } = await daemonOn(path);
    expect(await daemon.get('s1')).toMatchObject({
      status: 'failed',
      error_message: 'Session orphaned due to daemon restart',
    });
    expect((await daemon.history('s1')).at(-1)).toMatchObject({
      event: { type: 'SESSION_ORPHANED' },
      actor: 'recovery',
    });
    expect(await gone(ready.pid, ready.pid_start)).toBe(true);
  });
});
