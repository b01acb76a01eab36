import { describe, expect, it } from 'vitest';
import { createActor, transition } from 'xstate';
import { lifecycles, type RecoveringRun } from '../../machines/index.js';
import {
  childSessionInput,
  ContinueSessionError,
  recoverSession,
  sessionMachine,
  sessionRecord,
  type SessionContext,
  type SessionRecord,
  type SessionStatus,
} from '../../machines/session.js';
import { ev, input, startSession, T0 } from './session-fixtures.js';

/** A session driven to `status` by real events, as a stored run. */
function storedSession(status: SessionStatus, runId = 'session-1') {
  const { actor } = startSession(
    input({ config: { model: 'opus', working_dir: '/src/app', allowed_tools: ['Read'], max_turns: 8, approval_timeout_ms: 300_000 } }),
  );
  const steps: Record<SessionStatus, object[]> = {
    starting: [ev.spawned()],
    running: [ev.spawned(), ev.session()],
    waiting_input: [ev.spawned(), ev.session(), ev.approval(T0 + 2_000)],
    completed: [ev.spawned(), ev.session(), ev.result(T0 + 3_000), ev.exited(T0 + 3_100, 0)],
    failed: [ev.spawned(), ev.session(), ev.exited(T0 + 3_100, 1)],
  };
  for (const event of steps[status]) actor.send(event as any);
  expect(actor.getSnapshot().value).toBe(status);
  const snapshot = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
  actor.stop();
  return { runId, snapshot: snapshot as { value: SessionStatus; context: SessionContext; status: string } };
}

const recovering = (status: SessionStatus, previousOwner?: RecoveringRun['previousOwner']): RecoveringRun => ({
  ...storedSession(status),
  previousOwner,
  now: T0 + 7_200_000,
});
const deadOwner = { id: 'runtime-a', pid: 31337, host: 'build-1', alive: false };

describe('the recovery hook: orphaned sessions after a daemon restart', () => {
  it('is the registered recover hook of the session lifecycle', () => {
    expect(lifecycles.session.recover).toBe(recoverSession);
  });

  it.each(['starting', 'running', 'waiting_input'] as const)('fails a session left in %s with the seed message', (status) => {
    const run = recovering(status, deadOwner);
    const events = recoverSession(run);
    expect(events).toEqual([{ type: 'SESSION_ORPHANED', at: T0 + 7_200_000 }]);
    const restored = sessionMachine.resolveState({ value: status, context: run.snapshot.context });
    const [next] = transition(sessionMachine, restored, events[0] as any);
    expect(next.value).toBe('failed');
    expect(next.context).toMatchObject({
      error_message: 'Session orphaned due to daemon restart',
      completed_at: T0 + 7_200_000,
      duration_ms: 7_200_000,
      last_activity_at: T0 + 7_200_000,
    });
  });

  it('also fails sessions whose previous owner is unknown', () => {
    expect(recoverSession(recovering('running', undefined))).toEqual([{ type: 'SESSION_ORPHANED', at: T0 + 7_200_000 }]);
  });

  it('leaves terminal sessions alone', () => {
    expect(recoverSession(recovering('completed', deadOwner))).toEqual([]);
    expect(recoverSession(recovering('failed', deadOwner))).toEqual([]);
  });

  it('leaves a session alone while the daemon that owns it is still alive', () => {
    expect(recoverSession(recovering('running', { ...deadOwner, alive: true }))).toEqual([]);
  });
});

describe('continuing a session (parent and child)', () => {
  const parentOf = (status: SessionStatus) => sessionRecord(storedSession(status, 'parent-1'));
  const options = { query: 'Now update the changelog', created_at: T0 + 86_400_000, log_path: '/var/lib/statewright/sessions/child-1.jsonl' };

  it.each(['completed', 'failed'] as const)('creates a child of a %s parent in starting, resuming its Claude session', (status) => {
    const parent = parentOf(status);
    const before = JSON.stringify(parent);
    const childInput = childSessionInput(parent, options);
    expect(childInput).toEqual({
      ...options,
      parent_session_id: 'parent-1',
      resume_claude_session_id: 'claude-7f3a',
      config: { model: 'opus', working_dir: '/src/app', allowed_tools: ['Read'], approval_timeout_ms: 300_000 },
    });
    const { actor, agent } = startSession(childInput);
    expect(actor.getSnapshot().value).toBe('starting');
    expect(actor.getSnapshot().context).toMatchObject({ parent_session_id: 'parent-1', resume_claude_session_id: 'claude-7f3a', created_at: T0 + 86_400_000 });
    expect(agent.starts[0]).toMatchObject({
      command: ['claude', '--print', '--output-format', 'stream-json', '--verbose', '--resume', 'claude-7f3a', '--fork-session', '--model', 'opus', '--allowedTools', 'Read'],
      cwd: '/src/app',
      prompt: 'Now update the changelog',
    });
    // The child runs its own course; the parent record is untouched.
    actor.send(ev.session(T0 + 86_401_000, 'claude-child'));
    actor.send(ev.exited(T0 + 86_402_000, 1));
    expect(JSON.stringify(parent)).toBe(before);
  });

  it('lets the caller override inherited settings, including max_turns', () => {
    const childInput = childSessionInput(parentOf('completed'), { ...options, config: { model: 'haiku', max_turns: 3 } });
    expect(childInput.config).toMatchObject({ model: 'haiku', max_turns: 3, working_dir: '/src/app' });
  });

  it.each([
    ['running', 'Cannot continue session parent-1 with status running (must be completed or failed; interrupt it first)'],
    ['waiting_input', 'Cannot continue session parent-1 with status waiting_input (must be completed or failed; interrupt it first)'],
    ['starting', 'Cannot continue session parent-1 with status starting (must be completed or failed)'],
  ] as const)('refuses a %s parent and says what to do', (status, message) => {
    const attempt = () => childSessionInput(parentOf(status), options);
    expect(attempt).toThrow(ContinueSessionError);
    expect(attempt).toThrow(message);
  });

  it('refuses a parent that never reported a Claude session id', () => {
    const { actor } = startSession();
    actor.send(ev.startTimeout(T0 + 60_000));
    const parent = sessionRecord({ runId: 'parent-2', snapshot: actor.getSnapshot() });
    expect(() => childSessionInput(parent, options)).toThrow(
      'Cannot continue session parent-2: it never reported a Claude session ID, so there is no conversation to resume; start a new session instead',
    );
  });
});

describe('sessionRecord', () => {
  it('types a stored run by its status', () => {
    const record: SessionRecord = sessionRecord(storedSession('completed'));
    expect(record.status).toBe('completed');
    if (record.status === 'completed') expect([record.cost_usd, record.duration_ms + 0]).toEqual([0.0421, 3_100]);
    expect(record.session_id).toBe('session-1');
  });

  it('refuses a run of another lifecycle', () => {
    expect(() => sessionRecord({ runId: 'job-9', snapshot: { value: 'queued', context: {} as SessionContext } })).toThrow(
      `Run 'job-9' is not a session: its state "queued" is none of starting, running, waiting_input, completed, failed`,
    );
  });

  it('is what an actor snapshot gives too', () => {
    const actor = createActor(sessionMachine, { input: input() });
    expect(sessionRecord({ runId: 's', snapshot: actor.getSnapshot() }).status).toBe('starting');
  });
});
