import { describe, expect, it } from 'vitest';
import { createActor, transition } from 'xstate';
import { lifecycles, type RecoveringRun } from '../../machines/index.js';
import {
  childSessionInput,
  ContinueSessionError,
  recoverSession,
  sessionMachine,
  sessionRecord,
  type SessionConfig,
  type SessionContext,
  type SessionRecord,
  type SessionStatus,
} from '../../machines/session/index.js';
import { ev, input, startSession, T0 } from './session-fixtures.js';

const PARENT_CONFIG: SessionConfig = {
  model: 'opus',
  working_dir: '/src/app',
  allowed_tools: ['Read'],
  max_turns: 8,
  approval_timeout_ms: 300_000,
};

/** A session driven to `status` by real events, as a stored run. */
function storedSession(status: SessionStatus, runId = 'session-1', config: SessionConfig = PARENT_CONFIG) {
  const { actor } = startSession(input({ config }));
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

  it.each(['starting', 'running', 'waiting_input'] as const)(
    'fails a session left in %s with the seed message',
    (status) => {
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
    },
  );

  it('also fails sessions whose previous owner is unknown', () => {
    expect(recoverSession(recovering('running', undefined))).toEqual([
      { type: 'SESSION_ORPHANED', at: T0 + 7_200_000 },
    ]);
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
  const parentOf = (status: SessionStatus, config?: SessionConfig) =>
    sessionRecord(storedSession(status, 'parent-1', config));
  const options = {
    query: 'Now update the changelog',
    created_at: T0 + 86_400_000,
    log_path: '/var/lib/statewright/sessions/child-1.jsonl',
  };
  /** Continuing must be refused with a typed error, and leave the parent as it was. */
  const refused = (parent: SessionRecord, message: string, config?: SessionConfig) => {
    const before = JSON.stringify(parent);
    const attempt = () => childSessionInput(parent, { ...options, ...(config && { config }) });
    expect(attempt).toThrow(ContinueSessionError);
    expect(attempt).toThrow(message);
    expect(JSON.stringify(parent)).toBe(before);
  };

  it.each(['completed', 'failed'] as const)(
    'creates a child of a %s parent in starting, resuming its Claude session',
    (status) => {
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
      // Like hld's child, it has no Claude session of its own until its agent reports one.
      expect(actor.getSnapshot().context).toMatchObject({
        parent_session_id: 'parent-1',
        resume_claude_session_id: 'claude-7f3a',
        claude_session_id: null,
        created_at: T0 + 86_400_000,
      });
      expect(agent.starts[0]).toMatchObject({
        command: [
          'claude',
          '--print',
          '--output-format',
          'stream-json',
          '--verbose',
          '--include-partial-messages',
          '--resume',
          'claude-7f3a',
          '--fork-session',
          '--model',
          'opus',
          '--allowedTools',
          'Read',
        ],
        cwd: '/src/app',
        prompt: 'Now update the changelog',
      });
      // The child runs its own course; the parent record is untouched.
      actor.send(ev.session(T0 + 86_401_000, 'claude-child'));
      actor.send(ev.exited(T0 + 86_402_000, 1));
      expect(JSON.stringify(parent)).toBe(before);
    },
  );

  it("continues a child in turn: the grandchild resumes the child's own conversation, in the same folder", () => {
    const { actor } = startSession(childSessionInput(parentOf('completed'), options));
    for (const event of [
      ev.spawned(),
      ev.session(T0 + 86_401_000, 'claude-child'),
      ev.result(T0 + 86_402_000),
      ev.exited(T0 + 86_403_000, 0),
    ])
      actor.send(event as any);
    const child = sessionRecord({ runId: 'child-1', snapshot: actor.getSnapshot() });
    actor.stop();
    const grandchild = childSessionInput(child, {
      ...options,
      log_path: '/var/lib/statewright/sessions/grandchild-1.jsonl',
    });
    expect(grandchild).toMatchObject({
      parent_session_id: 'child-1',
      resume_claude_session_id: 'claude-child',
      config: { working_dir: '/src/app', model: 'opus' },
    });
  });

  it("inherits every setting hld's child inherits (prompts, permission prompt tool, tools, directories, MCP servers) but max_turns", () => {
    const config: SessionConfig = {
      model: 'opus',
      working_dir: '/src/app',
      system_prompt: 'You are a release engineer.',
      append_system_prompt: 'Be brief.',
      permission_prompt_tool: 'mcp__approvals__request_permission',
      allowed_tools: ['Read', 'Edit'],
      disallowed_tools: ['Bash'],
      additional_directories: ['/src/lib'],
      mcp_servers: { approvals: { command: 'approvals-mcp', args: ['--stdio'] } },
      max_turns: 8,
    };
    const { max_turns: _notInherited, ...inherited } = config;
    const child = childSessionInput(parentOf('completed', config), options);
    expect(child.config).toEqual(inherited);
    const { actor, agent } = startSession(child);
    expect(agent.starts[0]).toMatchObject({ command: expect.not.arrayContaining(['--max-turns']), cwd: '/src/app' });
    actor.stop();
  });

  it('lets the caller override inherited settings, including max_turns', () => {
    const childInput = childSessionInput(parentOf('completed'), {
      ...options,
      config: { model: 'haiku', max_turns: 3, permission_prompt_tool: 'mcp__other__ask' },
    });
    expect(childInput.config).toMatchObject({
      model: 'haiku',
      max_turns: 3,
      permission_prompt_tool: 'mcp__other__ask',
      working_dir: '/src/app',
      allowed_tools: ['Read'],
    });
  });

  it("replaces the parent's MCP servers as a whole when the caller gives its own, as hld does", () => {
    const parent = parentOf('completed', { ...PARENT_CONFIG, mcp_servers: { original: { command: 'original-mcp' } } });
    expect(childSessionInput(parent, options).config?.mcp_servers).toEqual({ original: { command: 'original-mcp' } });
    const child = childSessionInput(parent, {
      ...options,
      config: { mcp_servers: { replacement: { command: 'replacement-mcp' } } },
    });
    expect(child.config?.mcp_servers).toEqual({ replacement: { command: 'replacement-mcp' } });
  });

  it('keeps the inherited value of a setting given as undefined: only settings actually given override', () => {
    const child = childSessionInput(parentOf('completed'), {
      ...options,
      config: { model: undefined, allowed_tools: undefined, max_turns: 2 },
    });
    expect(child.config).toEqual({
      model: 'opus',
      working_dir: '/src/app',
      allowed_tools: ['Read'],
      approval_timeout_ms: 300_000,
      max_turns: 2,
    });
  });

  it.each([
    [
      'running',
      'Cannot continue session parent-1 with status running (must be completed or failed; wait for it to finish, or interrupt it first)',
    ],
    [
      'waiting_input',
      'Cannot continue session parent-1 with status waiting_input (must be completed or failed; resolve its pending approvals, or interrupt it first)',
    ],
    [
      'starting',
      'Cannot continue session parent-1 with status starting (must be completed or failed; wait for it to finish, or interrupt it first)',
    ],
  ] as const)('refuses a %s parent and says what to do', (status, message) => {
    refused(parentOf(status), message);
  });

  it('refuses a parent that never reported a Claude session id', () => {
    const { actor } = startSession(input({ config: PARENT_CONFIG }));
    actor.send(ev.startTimeout(T0 + 60_000));
    refused(
      sessionRecord({ runId: 'parent-2', snapshot: actor.getSnapshot() }),
      'Cannot continue session parent-2: it never reported a Claude session ID, so there is no conversation to resume; start a new session instead',
    );
  });

  it.each(['completed', 'failed'] as const)(
    "refuses a %s parent without a working directory with hld's message",
    (status) => {
      const { working_dir: _none, ...config } = PARENT_CONFIG;
      refused(
        parentOf(status, config),
        'Cannot continue session parent-1: parent session missing working_dir (cannot resume session without working directory). ' +
          'It ran in whatever folder the daemon was in, and Claude keeps its conversation under that folder; start a new session with config.working_dir instead',
      );
    },
  );

  it("checks in hld's order: the status before the working directory", () => {
    const { working_dir: _none, ...config } = PARENT_CONFIG;
    refused(parentOf('running', config), 'Cannot continue session parent-1 with status running');
  });

  it("runs the child in its parent's folder: another working directory is refused, the same one accepted", () => {
    const parent = parentOf('completed');
    refused(
      parent,
      'Cannot continue session parent-1 in /src/other: it ran in /src/app, where Claude keeps its conversation, so the child must run there to resume it; ' +
        'leave config.working_dir out (the child inherits it), or start a new session in /src/other',
      { working_dir: '/src/other' },
    );
    expect(
      childSessionInput(parent, { ...options, config: { working_dir: '/src/app', model: 'haiku' } }).config,
    ).toMatchObject({ working_dir: '/src/app', model: 'haiku' });
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
    expect(() =>
      sessionRecord({ runId: 'job-9', snapshot: { value: 'queued', context: {} as SessionContext } }),
    ).toThrow(
      `Run 'job-9' is not a session: its state "queued" is none of starting, running, waiting_input, completed, failed`,
    );
  });

  it('is what an actor snapshot gives too', () => {
    const actor = createActor(sessionMachine, { input: input() });
    expect(sessionRecord({ runId: 's', snapshot: actor.getSnapshot() }).status).toBe('starting');
  });
});
