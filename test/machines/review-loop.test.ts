import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, type EventObject } from 'xstate';
import {
  agentInvocation,
  DEFAULT_MAX_ITERATIONS,
  MAX_ITERATIONS_REACHED,
  reviewLoop,
  reviewLoopMachine,
  type AgentInvocation,
  type ReviewLoopEvent,
  type ReviewLoopInput,
} from '../../machines/review-loop/index.js';
import { explainRejection, InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';

/** The machine with recording stand-ins for its agents: every start, input and stop is logged. */
function recordingLoop(input?: ReviewLoopInput) {
  const log: string[] = [];
  const agent = (name: string) =>
    fromCallback<EventObject, AgentInvocation>(({ input }) => {
      log.push(`start ${name} ${JSON.stringify(input)}`);
      return () => log.push(`stop ${name} ${input.iteration}`);
    });
  const machine = reviewLoopMachine.provide({ actors: { primary: agent('primary'), reviewer: agent('reviewer') } });
  const actor = createActor(machine, { input }).start();
  const send = (...events: ReviewLoopEvent[]) => {
    for (const event of events) actor.send(event);
    return actor.getSnapshot();
  };
  return { actor, log, send };
}

const spawned = (pid: number) =>
  ({ type: 'agent.spawned', pid, pidStart: `start-${pid}`, logPath: `/tmp/${pid}.jsonl` }) as const;

describe('the review loop machine', () => {
  it("has the seed's five states with complete and failed terminal", () => {
    expect(reviewLoop.states).toEqual(['init', 'working', 'reviewing', 'complete', 'failed']);
    expect(reviewLoop.terminalStates).toEqual(['complete', 'failed']);
    expect(reviewLoop.states.filter(reviewLoop.isTerminal)).toEqual(['complete', 'failed']);
  });

  it('starts in init with iteration 0, max iterations 20 and a reviewer by default', () => {
    const { actor } = recordingLoop();
    expect(actor.getSnapshot().value).toBe('init');
    expect(actor.getSnapshot().context).toEqual({
      maxIterations: DEFAULT_MAX_ITERATIONS,
      mode: 'paired',
      iteration: 0,
      sessions: {},
    });
    expect(DEFAULT_MAX_ITERATIONS).toBe(20);
  });

  it('refuses an input it cannot run, naming the field', () => {
    for (const input of [
      { maxIterations: 0 },
      { maxIterations: 2.5 },
      { mode: 'trio' },
      { maxIterations: 3, retries: 1 },
    ]) {
      const actor = createActor(reviewLoopMachine, { input: input as ReviewLoopInput });
      const errors: unknown[] = [];
      actor.subscribe({ error: (e) => errors.push(e) });
      actor.start();
      expect(actor.getSnapshot().status, JSON.stringify(input)).toBe('error');
      expect(String(errors[0])).toMatch(/maxIterations|mode|retries/);
    }
  });

  it('runs a paired loop: work, review, more work, review, PASS', () => {
    const { send, log } = recordingLoop({ maxIterations: 5 });
    expect(send({ type: 'AGENTS_STARTED' }).context.iteration).toBe(1);
    let snapshot = send({ type: 'PRIMARY_FINISHED', verdict: 'none' });
    expect(snapshot.value).toBe('reviewing');
    snapshot = send({ type: 'CHANGES_REQUESTED', reason: 'add a test' });
    expect([snapshot.value, snapshot.context.iteration]).toEqual(['working', 2]);
    snapshot = send({ type: 'PRIMARY_FINISHED', verdict: 'pass' }, { type: 'PASS', reason: 'all tests pass' });
    expect(snapshot.value).toBe('complete');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context).toMatchObject({ iteration: 2, reason: 'PASS: all tests pass' });
    expect(snapshot.context.error).toBeUndefined();
    // Each agent ran once per iteration, one at a time, and was stopped when its state was left.
    expect(log.map((l) => l.replace(/ \{.*\}$/, ''))).toEqual([
      'start primary',
      'stop primary 1',
      'start reviewer',
      'stop reviewer 1',
      'start primary',
      'stop primary 2',
      'start reviewer',
      'stop reviewer 2',
    ]);
  });

  it('completes from working when the primary signals DONE', () => {
    const { send } = recordingLoop();
    const snapshot = send({ type: 'AGENTS_STARTED' }, { type: 'DONE', reason: 'implemented' });
    expect([snapshot.value, snapshot.context.reason]).toEqual(['complete', 'DONE: implemented']);
  });

  it('fails with "max iterations reached" when the review asks for more work after the last allowed iteration', () => {
    const { send, log } = recordingLoop({ maxIterations: 3 });
    send({ type: 'AGENTS_STARTED' });
    for (let i = 1; i < 3; i++) send({ type: 'PRIMARY_FINISHED' }, { type: 'CHANGES_REQUESTED' });
    let snapshot = send({ type: 'PRIMARY_FINISHED' });
    expect([snapshot.value, snapshot.context.iteration]).toEqual(['reviewing', 3]);
    snapshot = send({ type: 'CHANGES_REQUESTED', reason: 'still wrong' });
    expect([snapshot.value, snapshot.context.iteration, snapshot.context.error]).toEqual([
      'failed',
      3,
      MAX_ITERATIONS_REACHED,
    ]);
    expect(log.filter((l) => l.startsWith('start primary'))).toHaveLength(3);
  });

  it('allows exactly the default 20 iterations', () => {
    const { send } = recordingLoop();
    send({ type: 'AGENTS_STARTED' });
    let iterations = 0;
    let snapshot = send();
    while (snapshot.value !== 'failed') {
      iterations++;
      snapshot = send({ type: 'PRIMARY_FINISHED' }, { type: 'CHANGES_REQUESTED' });
    }
    expect([iterations, snapshot.context.iteration, snapshot.context.error]).toEqual([20, 20, MAX_ITERATIONS_REACHED]);
  });

  it('runs a single-agent loop without a reviewer: each finished iteration starts the next, then the budget ends it', () => {
    const { send, log } = recordingLoop({ maxIterations: 3, mode: 'single' });
    send({ type: 'AGENTS_STARTED' }, spawned(100), { type: 'agent.session', sessionId: 's-1' });
    let snapshot = send({ type: 'PRIMARY_FINISHED' });
    expect([snapshot.value, snapshot.context.iteration]).toEqual(['working', 2]);
    expect(snapshot.context.process).toBeUndefined();
    snapshot = send({ type: 'PRIMARY_FINISHED' }, { type: 'PRIMARY_FINISHED' });
    expect([snapshot.value, snapshot.context.iteration, snapshot.context.error]).toEqual([
      'failed',
      3,
      MAX_ITERATIONS_REACHED,
    ]);
    expect(log.some((l) => l.includes('reviewer'))).toBe(false);
    // The primary is a new process each iteration, continuing its session.
    const starts = log
      .filter((l) => l.startsWith('start primary'))
      .map((l) => JSON.parse(l.slice('start primary '.length)));
    expect(starts).toEqual([
      { role: 'primary', iteration: 1 },
      { role: 'primary', iteration: 2, sessionId: 's-1' },
      { role: 'primary', iteration: 3, sessionId: 's-1' },
    ]);
  });

  it('completes a single-agent loop on DONE', () => {
    const { send } = recordingLoop({ mode: 'single' });
    expect(send({ type: 'AGENTS_STARTED' }, { type: 'PRIMARY_FINISHED' }, { type: 'DONE' }).context).toMatchObject({
      iteration: 2,
      reason: 'DONE',
    });
  });

  it.each([
    ['working', [{ type: 'AGENTS_STARTED' }]],
    ['reviewing', [{ type: 'AGENTS_STARTED' }, { type: 'PRIMARY_FINISHED' }]],
  ] as Array<[string, ReviewLoopEvent[]]>)(
    'fails from %s on a FAIL signal, an agent error or a cancel, stopping the agent',
    (state, prefix) => {
      const cases: Array<[ReviewLoopEvent, string]> = [
        [{ type: 'FAIL', reason: 'cannot be done' }, 'FAIL: cannot be done'],
        [{ type: 'FAIL' }, 'FAIL'],
        [{ type: 'AGENT_ERROR', error: 'exited with code 1' }, 'exited with code 1'],
        [{ type: 'CANCEL', reason: 'SIGINT' }, 'context cancelled: SIGINT'],
        [{ type: 'CANCEL' }, 'context cancelled'],
      ];
      for (const [event, error] of cases) {
        const { send, log } = recordingLoop();
        expect(send(...prefix).value).toBe(state);
        const snapshot = send(event);
        expect([snapshot.value, snapshot.context.error]).toEqual(['failed', error]);
        expect(log.at(-1)).toBe(`stop ${state === 'working' ? 'primary' : 'reviewer'} 1`);
      }
    },
  );

  it('fails from init when an agent cannot start, or on a cancel', () => {
    expect(recordingLoop().send({ type: 'AGENT_START_FAILED', error: "'codex' not found" }).context.error).toBe(
      "'codex' not found",
    );
    expect(recordingLoop().send({ type: 'CANCEL' }).value).toBe('failed');
  });

  it('refuses an error event without an error, naming the missing field', () => {
    const { actor, send } = recordingLoop();
    const bad = { type: 'AGENT_START_FAILED' } as ReviewLoopEvent;
    expect(actor.getSnapshot().can(bad)).toBe(false);
    expect(send(bad).value).toBe('init');
    const error = explainRejection(actor.getSnapshot(), bad);
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect((error as MetadataValidationError).missing).toEqual(['error']);
    send({ type: 'AGENTS_STARTED' });
    const report = explainRejection(actor.getSnapshot(), { type: 'agent.spawned', pid: 7 } as EventObject);
    expect((report as MetadataValidationError).missing).toEqual(['pidStart', 'logPath']);
    expect(explainRejection(actor.getSnapshot(), { type: 'PASS' })).toBeInstanceOf(InvalidTransitionError);
  });

  it("records the agent's process and session for adopting the process after a restore", () => {
    const { actor, send } = recordingLoop();
    send({ type: 'AGENTS_STARTED' }, spawned(4242), { type: 'agent.session', sessionId: 'primary-session' });
    const { context } = actor.getSnapshot();
    expect(context.process).toEqual({ pid: 4242, pidStart: 'start-4242', logPath: '/tmp/4242.jsonl' });
    expect(agentInvocation('primary', context)).toEqual({
      role: 'primary',
      iteration: 1,
      sessionId: 'primary-session',
      recorded: { pid: 4242, pidStart: 'start-4242', logPath: '/tmp/4242.jsonl' },
    });
  });

  it('is restored by XState with the agent input of the first start, which is why agentInvocation is exported', () => {
    const { actor, send } = recordingLoop();
    send({ type: 'AGENTS_STARTED' }, spawned(4242));
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    const inputs: AgentInvocation[] = [];
    const primary = fromCallback<EventObject, AgentInvocation>(({ input }) => void inputs.push(input));
    const restored = createActor(reviewLoopMachine.provide({ actors: { primary } }), {
      snapshot: persisted,
      input: undefined,
    }).start();
    expect(restored.getSnapshot().value).toBe('working');
    // The restored child gets its original input (no `recorded`), not one from the restored context.
    expect(inputs).toEqual([{ role: 'primary', iteration: 1 }]);
    expect(agentInvocation('primary', restored.getSnapshot().context).recorded?.pid).toBe(4242);
  });

  it("gives the reviewer its own session and the primary's verdict, and forgets processes between agents", () => {
    const { send, log } = recordingLoop();
    send({ type: 'AGENTS_STARTED' }, spawned(1), { type: 'agent.session', sessionId: 'p' });
    let snapshot = send({ type: 'PRIMARY_FINISHED', verdict: 'pass' });
    expect(snapshot.context.process).toBeUndefined();
    expect(snapshot.context.primaryVerdict).toBe('pass');
    send(spawned(2), { type: 'agent.session', sessionId: 'r' });
    snapshot = send({ type: 'CHANGES_REQUESTED' });
    expect(snapshot.context).toMatchObject({ iteration: 2, sessions: { primary: 'p', reviewer: 'r' } });
    expect(snapshot.context.process).toBeUndefined();
    expect(snapshot.context.primaryVerdict).toBeUndefined();
    send({ type: 'PRIMARY_FINISHED' });
    const reviewerStarts = log
      .filter((l) => l.startsWith('start reviewer'))
      .map((l) => JSON.parse(l.slice('start reviewer '.length)));
    expect(reviewerStarts).toEqual([
      { role: 'reviewer', iteration: 1, primaryVerdict: 'pass' },
      { role: 'reviewer', iteration: 2, sessionId: 'r', primaryVerdict: 'none' },
    ]);
  });

  it('ignores nothing silently in a terminal state: a finished run accepts no event', () => {
    const { actor, send } = recordingLoop();
    send({ type: 'AGENTS_STARTED' }, { type: 'DONE' });
    for (const type of ['AGENTS_STARTED', 'PRIMARY_FINISHED', 'PASS', 'FAIL', 'CANCEL', 'CHANGES_REQUESTED'] as const) {
      expect(actor.getSnapshot().can({ type } as ReviewLoopEvent)).toBe(false);
      expect(explainRejection(actor.getSnapshot(), { type })).toBeInstanceOf(InvalidTransitionError);
    }
  });
});
