import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import {
  DEFAULT_SESSION_INTERRUPT_GRACE_MS,
  SESSION_AGENT_INTERRUPT,
  sessionClaudeCommand,
  parseSessionInput,
  SESSION_ERRORS,
  session,
  sessionMachine,
  SessionTransitionError,
  summarizeSession,
  type SessionStatus,
} from '../../machines/session/index.js';
import { explainSession } from '../../machines/session/explain.js';
import { explainRejection, InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';
import { ev, input, startSession, T0 } from './session-fixtures.js';

/** The seed's STATES table, transcribed: the oracle for the status-level API. */
const SEED_ALLOWED: Record<SessionStatus, SessionStatus[]> = {
  starting: ['running', 'failed'],
  running: ['waiting_input', 'completed', 'failed'],
  waiting_input: ['running', 'failed'],
  completed: [],
  failed: [],
};

describe('the session status API, derived from the machine', () => {
  it("has the seed's five statuses, two of them terminal", () => {
    expect(session.states).toEqual(['starting', 'running', 'waiting_input', 'completed', 'failed']);
    expect(session.terminalStates).toEqual(['completed', 'failed']);
    expect(session.activeStates).toEqual(['starting', 'running', 'waiting_input']);
  });

  it("allows exactly the seed's seven status transitions", () => {
    for (const status of session.states)
      expect([...session.transitions[status]].sort(), status).toEqual([...SEED_ALLOWED[status]].sort());
    expect(session.states.flatMap((s) => session.transitions[s]).length).toBe(7);
  });

  it('validates all 25 (from, to) pairs with the seed messages', () => {
    let valid = 0;
    for (const from of session.states) {
      for (const to of session.states) {
        const allowed = SEED_ALLOWED[from].includes(to);
        expect(session.canMove(from, to), `${from} → ${to}`).toBe(allowed);
        if (allowed) {
          expect(() => session.validateTransition(from, to)).not.toThrow();
          valid++;
        } else if (session.isTerminal(from)) {
          expect(() => session.validateTransition(from, to)).toThrow(`Cannot transition from terminal state: ${from}`);
        } else {
          expect(() => session.validateTransition(from, to)).toThrow(`Invalid transition: ${from} → ${to}`);
        }
      }
    }
    expect(valid).toBe(7);
  });

  it('throws a typed error carrying both statuses', () => {
    const error = (() => {
      try {
        session.validateTransition('starting', 'completed');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SessionTransitionError);
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toMatchObject({
      from: 'starting',
      to: 'completed',
      state: 'starting',
      message: 'Invalid transition: starting → completed',
    });
  });

  it('names an unknown status and the ones it could be', () => {
    expect(() => session.validateTransition('runing' as SessionStatus, 'failed')).toThrow(
      "Unknown session status: 'runing' (expected one of starting, running, waiting_input, completed, failed)",
    );
    expect(session.canMove('toString' as SessionStatus, 'failed')).toBe(false);
  });
});

describe('a session from start to finish', () => {
  it('starts in starting with the record of its input, the agent launched and a 60 s start deadline', () => {
    const { actor, agent, deadline } = startSession();
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('starting');
    expect(snapshot.context).toMatchObject({
      query: 'Make the failing test pass',
      created_at: T0,
      last_activity_at: T0,
      start_deadline: T0 + 60_000,
      claude_session_id: null,
      parent_session_id: null,
      approvals: [],
      completed_at: null,
      error_message: null,
    });
    expect(agent.starts).toEqual([
      {
        command: ['claude', '--print', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'],
        // Where the daemon hands approval decisions to the agent (and its permission prompt tool).
        env: { STATEWRIGHT_SESSION_DECISIONS: '/var/lib/statewright/sessions/s1.jsonl.decisions' },
        prompt: 'Make the failing test pass',
        logPath: '/var/lib/statewright/sessions/s1.jsonl',
      },
    ]);
    expect(deadline.starts).toEqual([{ deadline: T0 + 60_000, event: { type: 'START_TIMEOUT' } }]);
  });

  it('takes the start timeout from the configuration', () => {
    const { actor, deadline } = startSession(input({ config: { start_timeout_ms: 5_000 } }));
    expect(actor.getSnapshot().context.start_deadline).toBe(T0 + 5_000);
    expect(deadline.starts).toEqual([{ deadline: T0 + 5_000, event: { type: 'START_TIMEOUT' } }]);
  });

  it('records the agent process, then moves to running when the Claude session id arrives', () => {
    const { actor, agent, deadline } = startSession();
    actor.send(ev.spawned(T0 + 10));
    expect(actor.getSnapshot().context.agent).toEqual({
      pid: 4242,
      pid_start: 'Thu Jan  1 09:00:00 2026',
      log_path: '/var/lib/statewright/sessions/s1.jsonl',
    });
    expect(actor.getSnapshot().context.last_activity_at).toBe(T0 + 10);
    actor.send(ev.session(T0 + 1_500));
    expect(actor.getSnapshot().value).toBe('running');
    expect(actor.getSnapshot().context).toMatchObject({
      claude_session_id: 'claude-7f3a',
      last_activity_at: T0 + 1_500,
    });
    // The start timer is gone; the agent is the same process, not restarted.
    expect(deadline.log).toEqual(['start', 'stop']);
    expect(agent.log).toEqual(['start']);
  });

  it('completes on exit 0 after a successful result, with cost, tokens, summary, completed_at and duration_ms', () => {
    const { actor, agent } = startSession();
    actor.send(ev.session(T0 + 1_000));
    actor.send(ev.assistant(T0 + 2_000, 1_000, 200));
    actor.send(ev.assistant(T0 + 3_000, 500, 100));
    expect(actor.getSnapshot().context.tokens).toEqual({
      input: 1_500,
      output: 300,
      cache_read: 60,
      cache_creation: 40,
    });
    actor.send(ev.result(T0 + 4_000));
    expect(actor.getSnapshot().value).toBe('running');
    actor.send(ev.exited(T0 + 4_100, 0));
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('completed');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context).toMatchObject({
      completed_at: T0 + 4_100,
      duration_ms: 4_100,
      last_activity_at: T0 + 4_100,
      cost_usd: 0.0421,
      total_tokens: 1_550,
      summary: 'The failing test passes now; the fix was an off...',
      error_message: null,
      exit: { code: 0, signal: null, reason: 'exited with code 0' },
    });
    expect(agent.log).toEqual(['start', 'stop']);
  });

  it('keeps Claude retrying a model call (agent.retrying) until its next message, and explains the session by it', () => {
    const { actor } = startSession();
    actor.send(ev.session(T0 + 1_000));
    const retry = { type: 'agent.retrying', maxRetries: 10, errorStatus: 529, error: 'overloaded' } as const;
    actor.send({ ...retry, attempt: 1, at: T0 + 2_000 });
    actor.send({ ...retry, attempt: 3, at: T0 + 9_000 });
    expect(actor.getSnapshot().value).toBe('running');
    expect(actor.getSnapshot().context.retrying).toEqual({
      attempt: 3,
      max_retries: 10,
      error_status: 529,
      error: 'overloaded',
      since: T0 + 2_000,
      at: T0 + 9_000,
    });
    const explained = explainSession({ state: 'running', snapshot: actor.getSnapshot() } as never);
    expect(explained.verdict).toMatch(
      /^Claude is retrying: attempt 3 of 10, HTTP 529 \(overloaded\), since 2026-01-01T09:00:02.000Z: /,
    );
    actor.send(ev.assistant(T0 + 10_000, 100, 20));
    expect(actor.getSnapshot().context.retrying).toBeNull();
    expect(explainSession({ state: 'running', snapshot: actor.getSnapshot() } as never).verdict).toMatch(
      /^waiting for the agent: /,
    );
  });

  it('counts the tokens of the assistant messages when the result reports none', () => {
    const { actor } = startSession();
    actor.send(ev.session());
    actor.send(ev.assistant(T0 + 2_000, 1_000, 200));
    actor.send(ev.result(T0 + 3_000, { totalTokens: 0, result: '' }));
    actor.send(ev.exited(T0 + 3_100, 0));
    expect(actor.getSnapshot().context).toMatchObject({ total_tokens: 1_250, summary: 'Make the failing test pass' });
  });

  it('completes after a successful result when the agent, adopted from another host, ends with its exit status unknown', () => {
    const unknownExit = (at: number) =>
      ({
        type: 'agent.exited',
        code: null,
        signal: null,
        reason: 'ended while adopted (exit status unknown)',
        at,
      }) as const;
    const { actor } = startSession();
    actor.send(ev.session());
    actor.send(ev.result(T0 + 4_000));
    actor.send(unknownExit(T0 + 4_100));
    expect(actor.getSnapshot().value).toBe('completed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: null,
      exit: { code: null, signal: null, reason: 'ended while adopted (exit status unknown)' },
    });

    // Without a result, or killed by a signal, it failed all the same.
    const silent = startSession().actor;
    silent.send(ev.session());
    silent.send(unknownExit(T0 + 2_000));
    expect(silent.getSnapshot().value).toBe('failed');
    const killed = startSession().actor;
    killed.send(ev.session());
    killed.send(ev.result(T0 + 2_000));
    killed.send(ev.exited(T0 + 2_100, null));
    expect(killed.getSnapshot().value).toBe('failed');
  });

  it('fails with the exit reason on a non-zero exit', () => {
    const { actor, agent } = startSession();
    actor.send(ev.session());
    actor.send(ev.exited(T0 + 9_000, 2, 'exited with code 2: API key missing'));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: 'exited with code 2: API key missing',
      completed_at: T0 + 9_000,
      duration_ms: 9_000,
      cost_usd: null,
      exit: { code: 2, signal: null, reason: 'exited with code 2: API key missing' },
    });
    expect(agent.log).toEqual(['start', 'stop']);
  });

  it('fails when Claude exits 0 without a result, or after an error result', () => {
    const silent = startSession().actor;
    silent.send(ev.session());
    silent.send(ev.exited(T0 + 2_000, 0));
    expect(silent.getSnapshot().value).toBe('failed');
    expect(silent.getSnapshot().context.error_message).toBe('Claude exited without a result (exited with code 0)');

    const erring = startSession().actor;
    erring.send(ev.session());
    erring.send(ev.result(T0 + 2_000, { isError: true, result: 'Reached the maximum number of turns' }));
    erring.send(ev.exited(T0 + 2_100, 0));
    expect(erring.getSnapshot().value).toBe('failed');
    expect(erring.getSnapshot().context.error_message).toBe(
      'Claude reported an error: Reached the maximum number of turns',
    );
  });

  it('fails on a launch error: the agent exits before reporting a session id', () => {
    const { actor, deadline } = startSession();
    actor.send(ev.exited(T0 + 50, null, 'spawn claude ENOENT'));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: 'Claude exited before reporting a session ID: spawn claude ENOENT',
      completed_at: T0 + 50,
      duration_ms: 50,
    });
    expect(deadline.log).toEqual(['start', 'stop']);
  });

  it('fails on the start timeout with the seed message', () => {
    const { actor, agent } = startSession();
    actor.send(ev.startTimeout(T0 + 60_000));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: SESSION_ERRORS.startTimeout,
      completed_at: T0 + 60_000,
      duration_ms: 60_000,
    });
    expect(SESSION_ERRORS.startTimeout).toBe('Timeout waiting for Claude session ID');
    expect(agent.log).toEqual(['start', 'stop']);
  });

  it('accepts nothing once terminal', () => {
    const { actor } = startSession();
    actor.send(ev.startTimeout(T0 + 60_000));
    const done = actor.getSnapshot();
    for (const event of [
      ev.session(T0 + 61_000),
      ev.interrupt(T0 + 61_000),
      ev.orphaned(T0 + 61_000),
      ev.exited(T0 + 61_000, 0),
    ]) {
      expect(done.can(event)).toBe(false);
      actor.send(event);
    }
    expect(actor.getSnapshot().context).toEqual(done.context);
  });
});

describe('explaining a failed session', () => {
  it('gives the reason it failed: a timed-out approval names its tool call and the timeout', () => {
    const { actor } = startSession(input({ config: { approval_timeout_ms: 60_000 } }));
    actor.send(ev.session());
    actor.send(ev.approval(T0 + 2_000));
    actor.send({
      type: 'APPROVAL_TIMEOUT',
      approval_id: actor.getSnapshot().context.approvals[0]!.approval_id,
      at: T0 + 62_000,
    });
    expect(actor.getSnapshot().value).toBe('failed');
    const { verdict } = explainSession({ state: 'failed', snapshot: actor.getSnapshot() } as never);
    expect(verdict).toMatch(
      /^failed: Interrupted while waiting for approval \(Bash '.+' was not decided within approval_timeout_ms, 60000 ms\)$/,
    );
  });

  it('gives the reason of any other failure, in the record’s words', () => {
    const { actor } = startSession();
    actor.send(ev.exited(T0 + 1_000, 1));
    expect(explainSession({ state: 'failed', snapshot: actor.getSnapshot() } as never).verdict).toMatch(
      /^failed: Claude exited before reporting a session ID: /,
    );
  });
});

describe('interrupting a session', () => {
  it('sends SIGINT to the agent and arms the grace; the grace’s end (the timer’s INTERRUPT) fails the session', () => {
    const { actor, agent, deadline } = startSession();
    actor.send(ev.spawned());
    actor.send(ev.session());
    actor.send(ev.interrupt(T0 + 5_000));
    // Still running: the agent has the grace to write its last words (its result) and exit.
    expect(actor.getSnapshot().value).toBe('running');
    expect(agent.received).toEqual([SESSION_AGENT_INTERRUPT]);
    expect(SESSION_AGENT_INTERRUPT).toEqual({ type: 'agent.signal', signal: 'SIGINT' });
    expect(actor.getSnapshot().context.interrupt_requested).toEqual({
      message: 'Interrupted',
      at: T0 + 5_000,
      grace_until: T0 + 5_000 + DEFAULT_SESSION_INTERRUPT_GRACE_MS,
    });
    // The durable timer, due at the grace's end, sends INTERRUPT.
    expect(deadline.starts.at(-1)).toEqual({
      deadline: T0 + 5_000 + DEFAULT_SESSION_INTERRUPT_GRACE_MS,
      event: { type: 'INTERRUPT' },
    });
    actor.send(ev.interrupt(T0 + 8_000));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: 'Interrupted',
      completed_at: T0 + 8_000,
      duration_ms: 8_000,
      cost_usd: null,
    });
    // A second SIGINT at the grace's end (Claude exits on it), then the stop.
    expect(agent.log).toEqual(['start', 'agent.signal', 'agent.signal', 'stop']);
  });

  it('a person’s INTERRUPT keeps the cost of the result Claude writes on its way out (the exit fails it)', () => {
    const { actor } = startSession(input({ config: { interrupt_grace_ms: 10_000 } }));
    actor.send(ev.spawned());
    actor.send(ev.session());
    actor.send(ev.interrupt(T0 + 5_000, 'user pressed Ctrl+C'));
    actor.send(ev.result(T0 + 5_020, { costUsd: 0.62, totalTokens: 9_000, result: '', isError: true }));
    actor.send(ev.exited(T0 + 5_030, 0));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: 'Interrupted: user pressed Ctrl+C',
      cost_usd: 0.62,
      total_tokens: 9_000,
      exit: { code: 0 },
    });
  });

  it('the grace’s end keeps the cost of a result written by an agent that has not exited', () => {
    const { actor } = startSession();
    actor.send(ev.spawned());
    actor.send(ev.session());
    actor.send(ev.interrupt(T0 + 5_000));
    actor.send(ev.result(T0 + 5_020, { costUsd: 0.62, totalTokens: 9_000, result: '', isError: true }));
    actor.send(ev.interrupt(T0 + 8_000));
    expect(actor.getSnapshot().context).toMatchObject({ error_message: 'Interrupted', cost_usd: 0.62 });
  });

  it('fails at once when no agent was spawned (nothing to wait for), and when restored without its agent', () => {
    const { actor: first } = startSession();
    first.send(ev.session());
    const restored = sessionMachine.resolveState({ value: 'running', context: first.getSnapshot().context });
    expect(restored.children).toEqual({});
    // A restored actor takes no input; the machine's input type asks for one all the same.
    const actor = createActor(sessionMachine, { snapshot: restored, input: undefined as never }).start();
    actor.send(ev.interrupt(T0 + 5_000));
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().context.error_message).toBe('Interrupted');
  });

  it('asked for (INTERRUPT_REQUESTED): SIGINT now, failed on the exit with the cost of the result Claude wrote on its way out', () => {
    const { actor, agent } = startSession();
    actor.send(ev.session());
    actor.send({ type: 'INTERRUPT_REQUESTED', reason: 'enough', at: T0 + 5_000 });
    expect(actor.getSnapshot().value).toBe('running');
    expect(agent.received).toEqual([SESSION_AGENT_INTERRUPT]);
    expect(actor.getSnapshot().context.interrupt_requested).toMatchObject({
      message: 'Interrupted: enough',
      at: T0 + 5_000,
    });
    // Asked again: nothing more (the agent has its SIGINT).
    expect(actor.getSnapshot().can({ type: 'INTERRUPT_REQUESTED', at: T0 + 5_100 })).toBe(false);
    // What claude 2.1.328 writes after SIGINT: an error result with the aborted call's cost, then exit 0.
    actor.send(ev.result(T0 + 5_020, { costUsd: 0.00406, totalTokens: 1_003, result: '', isError: true }));
    actor.send(ev.exited(T0 + 5_030, 0));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: 'Interrupted: enough',
      cost_usd: 0.00406,
      total_tokens: 1_003,
      completed_at: T0 + 5_030,
      exit: { code: 0 },
    });
  });

  it('asked for while waiting for approval: the exit fails it with the seed message', () => {
    const { actor } = startSession();
    actor.send(ev.session());
    actor.send(ev.approval(T0 + 2_000));
    actor.send({ type: 'INTERRUPT_REQUESTED', at: T0 + 5_000 });
    expect(actor.getSnapshot().value).toBe('waiting_input');
    actor.send(ev.exited(T0 + 5_030, 0));
    expect(actor.getSnapshot().context).toMatchObject({
      error_message: SESSION_ERRORS.interruptedWaiting,
      cost_usd: null,
    });
  });

  it('can cancel a launch that hangs in starting', () => {
    const { actor, agent } = startSession();
    actor.send(ev.interrupt(T0 + 3_000));
    expect(actor.getSnapshot().value).toBe('failed');
    expect(agent.log).toEqual(['start', 'agent.signal', 'stop']);
  });
});

describe('event metadata', () => {
  it('refuses an event without its time and names the field', () => {
    const { actor } = startSession();
    const event = { type: 'agent.session', sessionId: 'claude-7f3a' } as any;
    expect(actor.getSnapshot().can(event)).toBe(false);
    const error = explainRejection(actor.getSnapshot(), event);
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect(error).toMatchObject({ target: 'running', missing: ['at'] });
    actor.send(event);
    expect(actor.getSnapshot().value).toBe('starting');
  });

  it('refuses agent events whose payload is wrong, naming each field', () => {
    const { actor } = startSession();
    actor.send(ev.session());
    const event = { type: 'agent.exited', code: 'one', at: T0 } as any;
    const error = explainRejection(actor.getSnapshot(), event) as MetadataValidationError;
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect(error.missing).toEqual(['reason']);
    expect(error.invalid.map((i) => i.field)).toEqual(['code']);
    expect(error.message).toMatch(/missing reason; code: /);
  });

  it('gives the same record for the same events, whatever the wall clock says', () => {
    vi.useFakeTimers();
    const run = (wallClock: number) => {
      vi.setSystemTime(wallClock);
      const { actor } = startSession();
      for (const event of [
        ev.spawned(),
        ev.session(),
        ev.approval(T0 + 2_000),
        ev.resolve(T0 + 3_000),
        ev.result(T0 + 4_000),
        ev.exited(T0 + 4_100, 0),
      ])
        actor.send(event);
      return actor.getSnapshot().context;
    };
    expect(run(Date.UTC(2030, 5, 1))).toEqual(run(Date.UTC(1999, 0, 1)));
  });
  afterEach(() => {
    vi.useRealTimers();
  });
});

describe('session input', () => {
  it('names every missing or wrong field, and unknown keys', () => {
    expect(() => parseSessionInput({ created_at: 'now', config: { workingDir: '/src' } })).toThrow(
      /^Session input is not valid: missing query, log_path; created_at: .*config: Unrecognized key: "workingDir".*Start the session again/,
    );
    try {
      parseSessionInput({});
    } catch (error) {
      expect(error).toBeInstanceOf(MetadataValidationError);
      expect((error as MetadataValidationError).missing).toEqual(['query', 'created_at', 'log_path']);
    }
  });

  it('leaves an actor given bad input in error, with the same typed error', () => {
    const actor = createActor(sessionMachine, { input: { query: '' } as any });
    const snapshot = actor.getSnapshot();
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toBeInstanceOf(MetadataValidationError);
  });
});

describe('the Claude command line', () => {
  it('turns the configuration into Claude Code flags, prompt on stdin', () => {
    expect(
      sessionClaudeCommand({
        resume_claude_session_id: 'claude-parent',
        config: {
          command: ['/opt/claude/bin/claude', '--debug'],
          model: 'opus',
          system_prompt: 'You are careful.',
          append_system_prompt: 'Run the tests.',
          permission_prompt_tool: 'mcp__approvals__request_permission',
          allowed_tools: ['Read', 'Bash(git:*)'],
          disallowed_tools: ['WebFetch'],
          additional_directories: ['/src/lib', '/src/docs'],
          mcp_servers: { approvals: { command: 'hld', args: ['mcp'] } },
          max_turns: 12,
        },
      }),
    ).toEqual([
      '/opt/claude/bin/claude',
      '--debug',
      '--print',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--resume',
      'claude-parent',
      '--fork-session',
      '--model',
      'opus',
      '--system-prompt',
      'You are careful.',
      '--append-system-prompt',
      'Run the tests.',
      '--permission-prompt-tool',
      'mcp__approvals__request_permission',
      '--allowedTools',
      'Read,Bash(git:*)',
      '--disallowedTools',
      'WebFetch',
      '--add-dir',
      '/src/lib',
      '--add-dir',
      '/src/docs',
      '--mcp-config',
      '{"mcpServers":{"approvals":{"command":"hld","args":["mcp"]}}}',
      '--max-turns',
      '12',
    ]);
  });

  it('gives the agent its working directory and environment', () => {
    const { agent } = startSession(
      input({ config: { working_dir: '/src/app', env: { CLAUDE_CONFIG_DIR: '/tmp/c' } } }),
    );
    expect(agent.starts[0]).toMatchObject({ cwd: '/src/app', env: { CLAUDE_CONFIG_DIR: '/tmp/c' } });
  });
});

describe('summarizeSession', () => {
  it('collapses whitespace and cuts at 50 characters with an ellipsis', () => {
    expect(summarizeSession('  fix\n\tthe   test ')).toBe('fix the test');
    expect(summarizeSession('x'.repeat(50))).toBe('x'.repeat(50));
    expect(summarizeSession('x'.repeat(51))).toBe(`${'x'.repeat(47)}...`);
    expect([...summarizeSession('é'.repeat(60))].length).toBe(50);
  });
});
