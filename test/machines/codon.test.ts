import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, type AnyActorRef, type EventObject } from 'xstate';
import {
  codon as codonLifecycle,
  InvalidTransitionError,
  MetadataValidationError,
  MissingTimestampError,
  codonMachine,
  enterCodonState,
  createCodonRecord,
  getCodonCost,
  getCodonTokens,
  parseCodonInput,
  type CheckpointInput,
  type CodonExecution,
  type CodonInput,
  type CodonStatus,
  type SentinelDrainInput,
  type SentinelState,
} from '../../machines/codon/index.js';
import { codonStatusNote, explainCodon } from '../../machines/codon/explain.js';
import { explainRejection } from '../../src/graph/index.js';
import { transitionCoveringPaths } from '../model/harness.js';
import { codonModel } from '../model/lifecycles/codon.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const iso = (at: number) => new Date(at).toISOString();

const input: CodonInput = {
  runId: 'run-1',
  codonId: 'research',
  startedAt: T0,
  workTree: '/tmp/work',
  agent: { command: ['agent'], logPath: '/tmp/work/.runs/research.log' },
  pricing: { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 },
};

/** A codon actor whose actors are stand-ins that record what the machine hands them. */
function codon(overrides: Partial<CodonInput> = {}) {
  const checkpoints: CheckpointInput[] = [];
  const drains: SentinelDrainInput[] = [];
  const agentInbox: EventObject[] = [];
  const machine = codonMachine.provide({
    actors: {
      agent: fromCallback(({ receive }) => receive((event) => agentInbox.push(event))),
      codonCheckpoint: fromCallback<EventObject, CheckpointInput>(({ input }) => void checkpoints.push(input)),
      sentinelDrain: fromCallback<EventObject, SentinelDrainInput>(({ input }) => void drains.push(input)),
    },
  });
  const actor = createActor(machine, { input: { ...input, ...overrides } }).start();
  let at = T0;
  const send = (event: EventObject & Record<string, unknown>) => {
    at += 1000;
    actor.send({ at, ...event } as never);
    return actor.getSnapshot();
  };
  return { actor, send, checkpoints, drains, agentInbox, now: () => at };
}

const CT = (from: CodonStatus, to: CodonStatus, metadata?: object) => ({
  type: 'CodonTransitioned',
  data: { from, to, ...(metadata && { metadata }) },
});
const usage = { input_tokens: 1000, output_tokens: 200, cache_creation_input_tokens: 0, cache_read_input_tokens: 5000 };

/** Drives a fresh codon to running through the agent's own reports. */
function running(overrides: Partial<CodonInput> = {}) {
  const c = codon(overrides);
  c.send(CT('preparing', 'starting', { checkpointSha: 'ab12cd3' }));
  c.send({ type: 'agent.spawned', pid: 4321, pidStart: '7777', logPath: '/tmp/work/.runs/research.log' });
  c.send({ type: 'agent.session', sessionId: 'sess-1' });
  expect(c.actor.getSnapshot().value).toBe('running');
  return c;
}

function rejection(actor: AnyActorRef, event: EventObject & Record<string, unknown>): Error {
  const snapshot = actor.getSnapshot();
  expect(snapshot.can(event)).toBe(false);
  return explainRejection(snapshot, event);
}

describe("the codon's transition map", () => {
  it("is the seed's CodonTransitions plus initializing -> completed, derived from the machine", () => {
    expect(codonLifecycle.transitions).toEqual({
      preparing: ['starting', 'failed', 'skipped'],
      starting: ['initializing', 'failed', 'skipped'],
      initializing: ['running', 'completed', 'failed', 'skipped'],
      running: ['completing-sentinels', 'completed', 'failed', 'skipped'],
      'completing-sentinels': ['completed', 'failed', 'skipped'],
      completed: [],
      failed: [],
      skipped: [],
    });
  });

  it('lets every non-terminal state fail or be skipped, and nothing leave a terminal state', () => {
    for (const [from, targets] of Object.entries(codonLifecycle.transitions) as Array<[CodonStatus, CodonStatus[]]>) {
      if (codonLifecycle.isTerminal(from)) expect(targets).toEqual([]);
      else expect(targets).toEqual(expect.arrayContaining(['failed', 'skipped']));
    }
    expect(codonMachine.root.states.completed!.type).toBe('final');
  });
});

describe('codon.validateTransition', () => {
  const thrown = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a throw');
  };

  it.each([
    ['completed', 'running'],
    ['preparing', 'completed'],
    ['preparing', 'running'],
    ['running', 'initializing'],
    ['failed', 'failed'],
    ['skipped', 'preparing'],
  ] as Array<[CodonStatus, CodonStatus]>)('refuses %s -> %s with the seed message', (from, to) => {
    const error = thrown(() => codonLifecycle.validateTransition(from, to, {}));
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error.message).toBe(`Invalid transition from ${from} to ${to}`);
  });

  it('names the missing metadata of each target', () => {
    const missing = (from: CodonStatus, to: CodonStatus, metadata?: unknown) => {
      const error = thrown(() => codonLifecycle.validateTransition(from, to, metadata));
      expect(error).toBeInstanceOf(MetadataValidationError);
      return [...(error as MetadataValidationError).missing].sort();
    };
    expect(missing('starting', 'initializing', {})).toEqual(['claudeLogPath', 'claudePid']);
    expect(missing('initializing', 'running', {})).toEqual(['claudeSessionId']);
    expect(missing('running', 'completed', {})).toEqual(['checkpointSha']);
    expect(missing('running', 'failed', {})).toEqual(['exitCode', 'failedDuring', 'failureReason']);
    expect(missing('running', 'skipped', {})).toEqual(['skippedDuring']);
    expect(missing('initializing', 'running', undefined)).toEqual(['(metadata)']);
    const error = thrown(() => codonLifecycle.validateTransition('initializing', 'running', {}));
    expect(error.message).toBe(
      "Metadata for 'running' is not valid: missing claudeSessionId. Send the event again with these fields set.",
    );
  });

  it('refuses a blank checkpoint SHA for completed, and wrong types, as invalid fields', () => {
    const error = thrown(() =>
      codonLifecycle.validateTransition('running', 'completed', { checkpointSha: '   ' }),
    ) as MetadataValidationError;
    expect(error.invalid).toEqual([{ field: 'checkpointSha', problem: 'must not be blank' }]);
    const typed = thrown(() =>
      codonLifecycle.validateTransition('starting', 'initializing', { claudePid: '12', claudeLogPath: 'x' }),
    ) as MetadataValidationError;
    expect(typed.invalid.map((i) => i.field)).toEqual(['claudePid']);
    const during = thrown(() =>
      codonLifecycle.validateTransition('running', 'failed', {
        exitCode: 1,
        failureReason: { type: 'unknown', retriable: true },
        failedDuring: 'completed',
      }),
    ) as MetadataValidationError;
    expect(during.invalid.map((i) => i.field)).toEqual(['failedDuring']);
  });

  it('accepts every edge with its required metadata, and edges that need none without any', () => {
    expect(() => codonLifecycle.validateTransition('preparing', 'starting')).not.toThrow();
    expect(() => codonLifecycle.validateTransition('running', 'completing-sentinels')).not.toThrow();
    expect(() =>
      codonLifecycle.validateTransition('initializing', 'completed', { checkpointSha: 'abc' }),
    ).not.toThrow();
    expect(() =>
      codonLifecycle.validateTransition('completing-sentinels', 'skipped', { skippedDuring: 'running' }),
    ).not.toThrow();
  });
});

describe('the codon machine refuses what it does not take, and says why', () => {
  it('refuses an edge the state does not have with the seed message, and leaves the state', () => {
    const c = codon();
    const event = { ...CT('preparing', 'completed', { checkpointSha: 'abc' }), at: T0 };
    const error = rejection(c.actor, event);
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error.message).toBe('Invalid transition from preparing to completed');
    c.actor.send(event as never);
    expect(c.actor.getSnapshot().value).toBe('preparing');
  });

  it("refuses an event whose 'from' is not the current state", () => {
    const c = running();
    const error = rejection(c.actor, { ...CT('initializing', 'running', { claudeSessionId: 's' }), at: T0 });
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error.message).toBe("Invalid transition from running to running: the event says it leaves 'initializing'");
  });

  it('names missing metadata on a valid edge', () => {
    const c = codon();
    c.send(CT('preparing', 'starting'));
    c.send(CT('starting', 'initializing', { claudePid: 12, claudeLogPath: 'a.log' }));
    const error = rejection(c.actor, CT('initializing', 'running', {}));
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect((error as MetadataValidationError).missing).toEqual(['claudeSessionId']);
    const blank = rejection(c.actor, { type: 'agent.session', sessionId: '' }) as MetadataValidationError;
    expect(blank.invalid).toEqual([{ field: 'claudeSessionId', problem: 'must not be blank' }]);
  });

  it('takes cost events only while running, and checks their payload', () => {
    const c = codon();
    c.send(CT('preparing', 'starting'));
    const tokens = { inputTokens: 1, outputTokens: 1, cacheCreationTokens: 0, cacheReadTokens: 0 };
    expect(rejection(c.actor, { type: 'CostsUpdated', data: { cost: 1, tokens } })).toBeInstanceOf(
      InvalidTransitionError,
    );
    const r = running();
    const bad = rejection(r.actor, { type: 'CostsUpdated', data: { cost: -1, tokens } }) as MetadataValidationError;
    expect(bad.invalid.map((i) => i.field)).toEqual(['cost']);
    const ok = r.send({ type: 'CostsUpdated', data: { cost: 0.25, tokens } });
    expect(ok.context.codon).toMatchObject({ currentCost: 0.25, currentTokens: tokens });
  });

  it('takes a rig checkpoint only as such, and only before the agent starts', () => {
    const c = codon();
    expect(
      rejection(c.actor, { type: 'CheckpointCreated', data: { checkpointType: 'completed', sha: 'abc', branch: 'b' } }),
    ).toBeInstanceOf(MetadataValidationError);
    c.send({ type: 'CheckpointCreated', data: { checkpointType: 'rig-setup', sha: 'abc1234', branch: 'run-1' } });
    expect(c.send(CT('preparing', 'starting')).context.codon).toMatchObject({
      status: 'starting',
      rigSetupCheckpoint: 'abc1234',
    });
    const r = running();
    expect(
      rejection(r.actor, { type: 'CheckpointCreated', data: { checkpointType: 'rig-setup', sha: 'abc', branch: 'b' } }),
    ).toBeInstanceOf(InvalidTransitionError);
  });

  it('refuses a bad start input, naming the fields', () => {
    expect(() => parseCodonInput({ runId: 'r', codonId: '', startedAt: T0, agent: { command: [] } })).toThrow(
      MetadataValidationError,
    );
    try {
      parseCodonInput({ runId: 'r', codonId: '', startedAt: T0, agent: { command: [] } });
    } catch (error) {
      const e = error as MetadataValidationError;
      expect(e.missing).toEqual(expect.arrayContaining(['workTree', 'agent.logPath']));
      expect(e.invalid.map((i) => i.field)).toEqual(expect.arrayContaining(['codonId', 'agent.command']));
    }
  });
});

describe('the codon record, state by state', () => {
  it('carries the seed data of each state on the agent-driven happy path', () => {
    const c = codon({ previousSessionId: 'sess-0' });
    expect(c.actor.getSnapshot().context.codon).toEqual({
      codonId: 'research',
      status: 'preparing',
      startTime: iso(T0),
    });
    c.send(CT('preparing', 'starting', { checkpointSha: 'ab12cd3' }));
    expect(c.actor.getSnapshot().context.codon).toEqual({
      codonId: 'research',
      status: 'starting',
      startTime: iso(T0),
      rigSetupCheckpoint: 'ab12cd3',
    });
    c.send({ type: 'agent.spawned', pid: 4321, pidStart: '7777', logPath: 'runs/research.log' });
    expect(c.actor.getSnapshot().context.codon).toMatchObject({
      status: 'initializing',
      claudePid: 4321,
      claudePidStart: '7777',
      claudeLogPath: 'runs/research.log',
      previousSessionId: 'sess-0',
    });
    c.send({ type: 'agent.session', sessionId: 'sess-1' });
    expect(c.actor.getSnapshot().context.codon).toMatchObject({
      status: 'running',
      claudeSessionId: 'sess-1',
      currentCost: 0,
      currentTokens: { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0 },
      assistantMessageCount: 0,
      extensionCount: 0,
    });
    c.send({ type: 'agent.assistant', usage, text: 'reading' });
    const after = c.send({ type: 'agent.assistant', usage, text: 'writing' }).context.codon;
    // 2 x (1000 x 3 + 200 x 15 + 5000 x 0.3) / 1e6
    expect(after).toMatchObject({
      assistantMessageCount: 2,
      currentTokens: { inputTokens: 2000, outputTokens: 400, cacheReadTokens: 10_000 },
    });
    expect(getCodonCost(after)).toBeCloseTo(0.015, 10);
    const result = c.send({
      type: 'agent.result',
      costUsd: 0.0123,
      totalTokens: 2400,
      isError: false,
      result: 'ok',
      sessionId: 'sess-1',
    });
    expect(getCodonCost(result.context.codon)).toBe(0.0123);
    c.send({ type: 'agent.exited', code: 0, signal: null, reason: 'exited with code 0' });
    expect(c.actor.getSnapshot().value).toBe('running');
    expect(c.checkpoints).toEqual([
      {
        workTree: '/tmp/work',
        runId: 'run-1',
        codonId: 'research',
        attempt: `run-1/research/${iso(T0)}`,
        transition: { from: 'running', to: 'completed', metadata: { resultMessageReceived: true } },
      },
    ]);
    const end = c.send(
      CT('running', 'completed', { ...c.checkpoints[0]!.transition.metadata, checkpointSha: 'f00d123' }),
    );
    expect(end.status).toBe('done');
    expect(end.output).toEqual({
      codonId: 'research',
      status: 'completed',
      startTime: iso(T0),
      endTime: iso(c.now()),
      rigSetupCheckpoint: 'ab12cd3',
      claudePid: 4321,
      claudePidStart: '7777',
      claudeSessionId: 'sess-1',
      claudeLogPath: 'runs/research.log',
      previousSessionId: 'sess-0',
      extensionCount: 0,
      assistantMessageCount: 2,
      exitCode: 0,
      finalCost: 0.0123,
      finalTokens: { inputTokens: 2000, outputTokens: 400, cacheCreationTokens: 0, cacheReadTokens: 10_000 },
      resultMessageReceived: true,
      completionCheckpoint: 'f00d123',
    } satisfies CodonExecution);
  });

  it("hands the agent its launch, with the work tree as the default directory and the codon's pricing", () => {
    const seen: unknown[] = [];
    const machine = codonMachine.provide({ actors: { agent: fromCallback(({ input }) => void seen.push(input)) } });
    const actor = createActor(machine, {
      input: { ...input, agent: { ...input.agent, prompt: 'do it', graceMs: 100 } },
    }).start();
    actor.send({ ...CT('preparing', 'starting'), at: T0 } as never);
    expect(seen).toEqual([
      {
        command: ['agent'],
        cwd: '/tmp/work',
        prompt: 'do it',
        graceMs: 100,
        logPath: '/tmp/work/.runs/research.log',
        pricing: input.pricing,
        wire: {},
      },
    ]);
  });

  it('hands the wire the budget, runs the agent direct with wire: false, and passes the stall bound', () => {
    const launched = (overrides: Partial<CodonInput>) => {
      const seen: unknown[] = [];
      const machine = codonMachine.provide({ actors: { agent: fromCallback(({ input }) => void seen.push(input)) } });
      createActor(machine, { input: { ...input, ...overrides } })
        .start()
        .send({ ...CT('preparing', 'starting'), at: T0 } as never);
      return seen[0] as Record<string, unknown>;
    };
    expect(launched({ budgetUsd: 2 })).toMatchObject({ wire: { budgetUsd: 2 } });
    const direct = launched({ wire: false, stallTimeoutMs: 30_000 });
    expect(direct).not.toHaveProperty('wire');
    expect(direct).toMatchObject({ stallMs: 30_000 });
  });

  it('drains loaded sentinels before the checkpoint, renaming loaded to executed at the end', () => {
    const c = running({ drainTimeoutMs: 5000 });
    const sentinel: SentinelState = {
      id: 'critic',
      model: 'haiku',
      loadedAt: iso(T0),
      llmCallCount: 1,
      failedLLMCalls: 0,
      totalCost: 0.001,
      status: 'active',
    };
    c.send({ type: 'SentinelStatesUpdated', data: { sentinelStates: [sentinel], totalCost: 0.001 } });
    c.send({ type: 'agent.result', costUsd: 0.02, isError: false });
    const exited = c.send({ type: 'agent.exited', code: 0, signal: null, reason: 'exited with code 0' });
    expect(exited.value).toBe('completing-sentinels');
    expect(c.drains).toEqual([{ sentinels: [sentinel], deadline: c.now() + 5000, timeoutMs: 5000 }]);
    expect(c.checkpoints).toEqual([]);
    const done = {
      ...sentinel,
      llmCallCount: 3,
      totalCost: 0.004,
      status: 'unloaded' as const,
      unloadReason: 'codon-complete' as const,
      unloadedAt: iso(c.now()),
    };
    c.send({ type: 'sentinels.drained', sentinelStates: [done], totalCost: 0.004 });
    expect(c.checkpoints.map((x) => x.transition)).toEqual([
      { from: 'completing-sentinels', to: 'completed', metadata: { resultMessageReceived: true } },
    ]);
    // A second report (a restored drain actor) plans nothing twice.
    expect(c.actor.getSnapshot().can({ type: 'sentinels.drained', sentinelStates: [done], totalCost: 0.004 })).toBe(
      false,
    );
    const end = c.send(
      CT('completing-sentinels', 'completed', { checkpointSha: 'f00d123', resultMessageReceived: true }),
    );
    expect(end.output).toMatchObject({
      status: 'completed',
      finalCost: 0.02,
      sentinels: { executed: [done], totalCost: 0.004 },
    });
    expect(end.output).not.toHaveProperty('sentinels.loaded');
  });

  it('stops an agent still running when the codon is moved on to completing-sentinels from outside', () => {
    let stopped = 0;
    const machine = codonMachine.provide({ actors: { agent: fromCallback(() => () => void stopped++) } });
    const actor = createActor(machine, { input }).start();
    let at = T0;
    const send = (event: object) => actor.send({ at: (at += 1000), ...event } as never);
    send(CT('preparing', 'starting'));
    send({ type: 'agent.spawned', pid: 4321, pidStart: '7777', logPath: 'a.log' });
    send({ type: 'agent.session', sessionId: 's' });
    expect(stopped).toBe(0);
    send(CT('running', 'completing-sentinels'));
    expect(stopped).toBe(1);
    expect(actor.getSnapshot().context.drainDeadline).toBe(at + 30_000);
  });

  it('fails the codon when the sentinels do not drain by the deadline', () => {
    const c = running();
    const sentinel: SentinelState = {
      id: 'critic',
      model: 'haiku',
      loadedAt: iso(T0),
      llmCallCount: 0,
      failedLLMCalls: 0,
      totalCost: 0,
      status: 'active',
    };
    c.send({ type: 'SentinelStatesUpdated', data: { sentinelStates: [sentinel], totalCost: 0 } });
    c.send({ type: 'agent.exited', code: 0, signal: null, reason: 'exited with code 0' });
    const cut = { ...sentinel, status: 'unloaded' as const, unloadReason: 'drain-timeout' as const };
    const end = c.send({
      type: 'sentinels.timedOut',
      sentinelStates: [cut],
      totalCost: 0,
      pending: ['critic'],
      timeoutMs: 30_000,
    });
    expect(end.output).toMatchObject({
      status: 'failed',
      failedDuring: 'completing-sentinels',
      exitCode: 0,
      failureReason: {
        type: 'timeout',
        retriable: true,
        message: 'Sentinel queues did not drain within 30000 ms: critic',
      },
      sentinels: { executed: [cut], totalCost: 0 },
    });
  });

  it('stops the agent at the budget and completes with budgetExceeded', () => {
    const c = running({ budgetUsd: 0.01 });
    c.send({ type: 'agent.assistant', usage, text: 'one' });
    expect(c.agentInbox).toEqual([]);
    c.send({ type: 'agent.assistant', usage, text: 'two' });
    expect(c.agentInbox).toEqual([{ type: 'agent.stop' }]);
    c.send({ type: 'agent.assistant', usage, text: 'three' });
    expect(c.agentInbox).toHaveLength(1);
    c.send({ type: 'agent.exited', code: null, signal: 'SIGTERM', reason: 'was killed by SIGTERM' });
    expect(c.checkpoints.map((x) => x.transition)).toEqual([
      { from: 'running', to: 'completed', metadata: { resultMessageReceived: false, budgetExceeded: true } },
    ]);
  });

  it('shows the cost metered at the wire while it runs, and stops the agent once it reaches the budget', () => {
    const c = running({ budgetUsd: 1 });
    const call = (callId: string) =>
      c.send({
        type: 'agent.metered',
        callId,
        usage: { input_tokens: 300_000 },
        costUsd: 0.6,
        calls: 1,
        spentUsd: 0.6,
      });
    const first = call('a');
    expect(first.context.codon).toMatchObject({ status: 'running', currentCost: 0.6 });
    expect(first.context.agent.wire).toMatchObject({ calls: 1, costUsd: 0.6 });
    // status and explain say so while it runs
    expect(codonStatusNote({ state: 'running', snapshot: first } as never)).toBe(
      'spent 0.6000 USD over 1 model call of a budget of 1 USD',
    );
    expect(explainCodon({ state: 'running', snapshot: first } as never).verdict).toContain(
      'the agent works (spent 0.6000 USD over 1 model call of a budget of 1 USD)',
    );
    expect(c.agentInbox).toEqual([]);
    call('b');
    expect(c.agentInbox).toEqual([{ type: 'agent.stop' }]);
    expect(c.actor.getSnapshot().context.agent.stop?.reason).toBe(
      'cost 1.2000 USD reached the budget of 1 USD (2 model calls metered at the wire)',
    );
    c.send({ type: 'agent.exited', code: 1, signal: null, reason: 'exited with code 1' });
    expect(c.checkpoints.map((x) => x.transition)).toEqual([
      { from: 'running', to: 'completed', metadata: { resultMessageReceived: false, budgetExceeded: true } },
    ]);
  });

  it('fails the codon with the cause once the upstream fails at the wire too often in a row', () => {
    const c = running({ upstreamFailures: 2 });
    const failed = (failures: number) =>
      c.send({ type: 'agent.upstreamFailed', cause: 'connection refused to api.example.com:443', failures });
    failed(1);
    expect(c.agentInbox).toEqual([]);
    // A call that ends well clears it.
    c.send({ type: 'agent.metered', callId: 'ok', usage: {}, costUsd: 0, calls: 1, spentUsd: 0 });
    expect(c.actor.getSnapshot().context.agent.upstream).toBeUndefined();
    failed(1);
    failed(2);
    expect(c.agentInbox).toEqual([{ type: 'agent.stop' }]);
    c.send({ type: 'agent.exited', code: null, signal: 'SIGTERM', reason: 'was killed by SIGTERM' });
    expect(c.checkpoints[0]!.transition).toMatchObject({
      to: 'failed',
      metadata: {
        failureReason: {
          type: 'api-error',
          retriable: true,
          message:
            "connection refused to api.example.com:443 (2 model calls in a row failed at statewright's metering proxy)",
        },
      },
    });
  });

  it('names the upstream cause when the agent gives up on its own after a failure at the wire', () => {
    const c = running();
    c.send({ type: 'agent.upstreamFailed', cause: 'HTTP 503 from api.example.com', failures: 1 });
    c.send({ type: 'agent.exited', code: 1, signal: null, reason: 'exited with code 1: stream error' });
    expect(c.checkpoints[0]!.transition.metadata).toMatchObject({
      failureReason: {
        type: 'api-error',
        message: 'HTTP 503 from api.example.com (the agent: exited with code 1: stream error)',
      },
    });
  });

  it('stops a silent agent at the stall bound and fails with a timeout', () => {
    const c = running({ stallTimeoutMs: 60_000 });
    c.send({ type: 'agent.stalled', silentMs: 61_000 });
    expect(c.agentInbox).toEqual([{ type: 'agent.stop' }]);
    c.send({ type: 'agent.exited', code: null, signal: 'SIGTERM', reason: 'was killed by SIGTERM' });
    expect(c.checkpoints[0]!.transition.metadata).toMatchObject({
      failureReason: { type: 'timeout', message: 'The agent wrote nothing for 61 s (stallTimeoutMs 60000)' },
    });
  });

  it('skips on request: stops the agent, then plans skipped', () => {
    const c = running();
    c.send({ type: 'codon.skip', reason: 'user' });
    expect(c.agentInbox).toEqual([{ type: 'agent.stop' }]);
    c.send({ type: 'agent.exited', code: null, signal: 'SIGTERM', reason: 'was killed by SIGTERM' });
    expect(c.checkpoints.map((x) => x.transition)).toEqual([
      { from: 'running', to: 'skipped', metadata: { skippedDuring: 'running' } },
    ]);
    const end = c.send(CT('running', 'skipped', { skippedDuring: 'running', checkpointSha: 'abc1234' }));
    expect(end.output).toMatchObject({
      status: 'skipped',
      skippedDuring: 'running',
      skipCheckpoint: 'abc1234',
      partialCost: 0,
    });
  });

  it('fails on a force-stop, even after a skip request', () => {
    const c = running();
    c.send({ type: 'codon.skip' });
    c.send({ type: 'codon.stop', reason: 'operator' });
    c.send({ type: 'agent.exited', code: null, signal: 'SIGKILL', reason: 'was killed by SIGKILL' });
    expect(c.checkpoints[0]!.transition).toEqual({
      from: 'running',
      to: 'failed',
      metadata: {
        exitCode: -1,
        failureReason: { type: 'unknown', retriable: false, message: 'Stopped: operator' },
        failedDuring: 'running',
      },
    });
  });

  it('stops the agent on an API timeout message and fails with a timeout', () => {
    const c = running();
    c.send({ type: 'agent.assistant', text: 'API Error: Request timed out.' });
    expect(c.agentInbox).toEqual([{ type: 'agent.stop' }]);
    c.send({ type: 'agent.exited', code: 143, signal: null, reason: 'exited with code 143' });
    expect(c.checkpoints[0]!.transition).toMatchObject({
      to: 'failed',
      metadata: { exitCode: 143, failureReason: { type: 'timeout' } },
    });
  });

  it("stops the agent on Claude 2.1.328's timeout message (synthetic) and fails with a timeout", () => {
    const c = running();
    const text =
      'Request timed out. If the API is slow to answer, or a proxy or gateway holds responses, set API_TIMEOUT_MS above 2000.';
    // The model saying those words is no timeout: only Claude's own message is.
    c.send({ type: 'agent.assistant', text, usage });
    expect(c.agentInbox).toEqual([]);
    c.send({ type: 'agent.assistant', text, synthetic: true });
    expect(c.agentInbox).toEqual([{ type: 'agent.stop' }]);
    c.send({ type: 'agent.result', isError: true, result: text, costUsd: 0 });
    c.send({ type: 'agent.exited', code: 1, signal: null, reason: 'exited with code 1' });
    expect(c.checkpoints[0]!.transition).toMatchObject({
      to: 'failed',
      metadata: { exitCode: 1, failureReason: { type: 'timeout', message: `The API request timed out (${text})` } },
    });
  });

  it("counts Claude's synthetic messages as no assistant message and no spend", () => {
    const c = running();
    c.send({ type: 'agent.assistant', text: 'working', usage });
    const after = c.send({ type: 'agent.assistant', text: 'API Error: 529 Overloaded.', synthetic: true, usage });
    expect(after.context.codon).toMatchObject({ assistantMessageCount: 1, currentTokens: { inputTokens: 1000 } });
  });

  it("quotes the agent's own error text in the failure reason of an error result", () => {
    const c = running();
    const text = 'API Error: 529 Overloaded. This is a server-side issue, usually temporary.';
    c.send({ type: 'agent.result', isError: true, result: text, costUsd: 0 });
    c.send({ type: 'agent.exited', code: 1, signal: null, reason: 'exited with code 1' });
    expect(c.checkpoints[0]!.transition.metadata?.failureReason).toEqual({
      type: 'api-error',
      retriable: true,
      message: `The agent reported an error result: ${text} (exited with code 1)`,
    });
  });

  it('keeps the agent retrying a model call until its next message, and explains the codon by it (status notes it)', () => {
    const c = running();
    const retry = { type: 'agent.retrying', attempt: 2, maxRetries: 10, errorStatus: 529, error: 'overloaded' };
    const retrying = c.send(retry);
    expect(retrying.context.agent.retrying).toMatchObject({ attempt: 2, max_retries: 10, error_status: 529 });
    expect(explainCodon({ state: 'running', snapshot: retrying } as never).verdict).toMatch(
      /^the agent is retrying: attempt 2 of 10, HTTP 529 \(overloaded\), since /,
    );
    expect(codonStatusNote({ state: 'running', snapshot: retrying } as never)).toBe('retrying 2/10 (HTTP 529)');
    // Claude's own error message is no end to it; the model's next message is.
    expect(
      c.send({ type: 'agent.assistant', text: 'API Error', synthetic: true }).context.agent.retrying,
    ).toBeDefined();
    const working = c.send({ type: 'agent.assistant', text: 'working', usage });
    expect(working.context.agent.retrying).toBeUndefined();
    expect(explainCodon({ state: 'running', snapshot: working } as never).verdict).toBeUndefined();
    expect(codonStatusNote({ state: 'running', snapshot: working } as never)).toBeUndefined();
  });

  it('flags a success whose cost crossed the budget with budgetExceeded', () => {
    const c = running({ budgetUsd: 0.01 });
    c.send({ type: 'agent.result', isError: false, result: 'done', costUsd: 0.06 });
    c.send({ type: 'agent.exited', code: 0, signal: null, reason: 'exited with code 0' });
    expect(c.checkpoints.map((x) => x.transition)).toEqual([
      { from: 'running', to: 'completed', metadata: { resultMessageReceived: true, budgetExceeded: true } },
    ]);
  });

  it("asks a Claude stream-json command line for each message's final usage (--include-partial-messages)", () => {
    const seen: Array<{ command: string[] }> = [];
    const machine = codonMachine.provide({
      actors: { agent: fromCallback(({ input }) => void seen.push(input as { command: string[] })) },
    });
    const claude = ['claude', '-p', '--output-format', 'stream-json', '--verbose'];
    for (const command of [claude, [...claude, '--include-partial-messages'], ['codex', 'exec', '--json']]) {
      const actor = createActor(machine, { input: { ...input, agent: { ...input.agent, command } } }).start();
      actor.send({ ...CT('preparing', 'starting'), at: T0 } as never);
    }
    expect(seen.map((s) => s.command)).toEqual([
      [...claude, '--include-partial-messages'],
      [...claude, '--include-partial-messages'],
      ['codex', 'exec', '--json'],
    ]);
  });

  it('completes from initializing when the agent finished without a valid init message', () => {
    const c = codon();
    c.send(CT('preparing', 'starting'));
    c.send({ type: 'agent.spawned', pid: 4321, pidStart: '7777', logPath: 'a.log' });
    c.send({ type: 'agent.result', costUsd: 0.5, isError: false });
    c.send({ type: 'agent.exited', code: 0, signal: null, reason: 'exited with code 0' });
    expect(c.checkpoints[0]!.transition).toEqual({
      from: 'initializing',
      to: 'completed',
      metadata: { resultMessageReceived: true },
    });
    const end = c.send(CT('initializing', 'completed', { checkpointSha: 'abc1234', resultMessageReceived: true }));
    expect(end.output).toMatchObject({ status: 'completed', finalCost: 0, claudePid: 4321 });
    expect(end.output).not.toHaveProperty('claudeSessionId');
  });

  it('fails during starting when the agent cannot be spawned', () => {
    const c = codon();
    c.send(CT('preparing', 'starting'));
    const end = c.send({ type: 'agent.exited', code: null, signal: null, reason: 'spawn failed: ENOENT' });
    expect(end.output).toMatchObject({
      status: 'failed',
      failedDuring: 'starting',
      exitCode: -1,
      failureReason: {
        type: 'unknown',
        retriable: false,
        message: 'The agent could not be started: spawn failed: ENOENT',
      },
      partialCost: 0,
    });
  });

  it('keeps partial costs on failure and counts skipped codons as 0', () => {
    const c = running();
    c.send({ type: 'agent.result', costUsd: 0.3, isError: false });
    const failed = c.send(
      CT('running', 'failed', {
        exitCode: 1,
        failureReason: { type: 'api-error', retriable: true },
        failedDuring: 'running',
        checkpointSha: 'e77e77e',
      }),
    ).output as CodonExecution;
    expect(failed).toMatchObject({ status: 'failed', partialCost: 0.3, errorCheckpoint: 'e77e77e' });
    expect(getCodonCost(failed)).toBe(0.3);
    const s = running();
    s.send({ type: 'agent.result', costUsd: 0.3, isError: false });
    const skipped = s.send(CT('running', 'skipped', { skippedDuring: 'running' })).output as CodonExecution;
    expect(skipped).toMatchObject({ partialCost: 0.3 });
    expect(getCodonCost(skipped)).toBe(0);
    expect(getCodonTokens(skipped)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
    });
  });

  it('needs a timestamp to stamp a terminal record', () => {
    const record = createCodonRecord('c', T0);
    expect(() =>
      enterCodonState(record, 'failed', {
        exitCode: 1,
        failureReason: { type: 'unknown', retriable: true },
        failedDuring: 'preparing',
      }),
    ).toThrow(MissingTimestampError);
    expect(() => createCodonRecord('c', undefined)).toThrow("Event 'CodonStarted' has no 'at' timestamp");
  });

  it('answers codon.isTerminal for the three terminal states only', () => {
    expect((Object.keys(codonLifecycle.transitions) as CodonStatus[]).filter(codonLifecycle.isTerminal)).toEqual([
      'completed',
      'failed',
      'skipped',
    ]);
  });
});

describe('the record and the state agree', () => {
  it('after every step of every transition-covering path, the record is the data of the state the machine is in', () => {
    const paths = transitionCoveringPaths(codonMachine, {
      samples: codonModel.samples,
      input: codonModel.input,
      contextKey: codonModel.contextKey,
    });
    let steps = 0;
    for (const path of paths) {
      const actor = createActor(codonMachine, { input: codonModel.input }).start();
      for (const step of path.steps.slice(1)) {
        actor.send(step.event as never);
        const snapshot = actor.getSnapshot();
        expect(snapshot.context.codon.status, `${JSON.stringify(step.event)}`).toBe(snapshot.value);
        steps++;
      }
      actor.stop();
    }
    expect(steps).toBeGreaterThan(100);
  });
});
