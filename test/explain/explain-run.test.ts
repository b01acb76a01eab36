import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { explainRun } from '../../src/explain/index.js';
import { InvalidTransitionError, isOutsideEvent, validEventsByState } from '../../src/graph/index.js';
import { createRuntime, ManualClock, type Runtime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { jsonFileStore } from '../../src/stores/json-file/json-file-store.js';
import { testDir } from '../stores/temp-dir.js';
import { leafName, transitionCoveringPaths, type ModelPath } from '../model/harness.js';
import { runtimeDriver } from '../model/runtime-driver.js';
import { lifecycleModels } from '../model/lifecycles/index.js';
import { modelInputs } from '../model/lifecycles/model.js';

const T0 = Date.UTC(2026, 0, 1, 9);
const iso = (ms: number) => new Date(ms).toISOString();

async function runtimeAt(clock = new ManualClock(T0), store = memoryStore()): Promise<Runtime> {
  return createRuntime({ store, machines: lifecycles, clock, recover: false });
}

/** For each leaf state of the machine, the first model path that ends there (with its input). */
function pathToEveryState(name: LifecycleName): Map<string, { path: ModelPath; input: unknown }> {
  const model = lifecycleModels[name];
  const byState = new Map<string, { path: ModelPath; input: unknown }>();
  for (const input of modelInputs(model)) {
    for (const path of transitionCoveringPaths(lifecycles[name].machine, {
      samples: model.samples,
      input,
      contextKey: model.contextKey,
    })) {
      for (let end = 1; end <= path.steps.length; end++) {
        const state = leafName(path.steps[end - 1]!.state);
        if (!byState.has(state)) byState.set(state, { path: { ...path, steps: path.steps.slice(0, end) }, input });
      }
    }
  }
  return byState;
}

describe.each(Object.keys(lifecycles) as LifecycleName[])(
  'explain, for every state of %s',
  // The session's covering paths are thousands of steps: minutes on a busy 2-core machine.
  { timeout: 300_000 },
  (name) => {
    const machine: AnyStateMachine = lifecycles[name].machine;
    const accepted = validEventsByState(machine);

    it('gives the state, since when, the events it accepts, its deadlines and a verdict naming what moves it', async () => {
      const runtime = await runtimeAt();
      const paths = pathToEveryState(name);
      expect([...accepted.keys()].filter((state) => !paths.has(state))).toEqual([]);
      const explained = new Set<string>();
      for (const [state, { path, input }] of paths) {
        const driver = runtimeDriver(runtime, name, input);
        for (const step of path.steps)
          await (step.event.type === 'xstate.init' ? driver.start() : driver.send(step.event));
        const run = await runtime.getSnapshot(driver.runId);
        if (run.state !== state) continue; // a refused sample left it elsewhere; another path reaches it
        const explanation = await explainRun(runtime, driver.runId);
        explained.add(state);
        const history = await runtime.history(driver.runId);
        const entered = [...history].reverse().find((r) => r.after === state && r.before !== state);
        const stayed = history.length > 0 && history.every((r) => r.before === state);
        expect(explanation, state).toMatchObject({ runId: driver.runId, machine: name, state, status: run.status });
        expect(explanation.since, state).toBe(stayed || !entered ? run.createdAt : entered.at);
        // What a sender can send, and apart from it, in words, what XState does by itself: together, every event the state takes.
        const takes = run.status === 'active' ? accepted.get(state)! : [];
        expect(new Set(explanation.accepts.map((a) => a.type)), state).toEqual(new Set(takes.filter(isOutsideEvent)));
        expect(new Set(explanation.movesOnItsOwn.map((m) => m.event)), state).toEqual(
          new Set(takes.filter((type) => !isOutsideEvent(type))),
        );
        for (const move of explanation.movesOnItsOwn) expect(move.label, state).not.toMatch(/xstate\./);
        for (const deadline of explanation.deadlines) {
          // A timer that names its event must fire one the state accepts (others report through their actor).
          if (deadline.event !== undefined)
            expect(
              explanation.accepts.map((a) => a.type),
              `${state}: ${deadline.name}`,
            ).toContain(deadline.event);
        }
        expect(explanation.owner, state).toMatchObject({ id: runtime.owner.id, alive: true });
        // The verdict names what moves the run: an event it accepts, an actor of it, or that it is finished.
        const movers = [
          ...explanation.accepts.map((a) => a.type),
          ...(explanation.actors?.awaited ?? []),
          ...(explanation.actors?.spawned ?? []),
        ];
        expect(explanation.verdict, state).not.toMatch(/xstate\./);
        if (run.status === 'active')
          expect(
            movers.some((m) => explanation.verdict.includes(m)),
            `${state}: ${explanation.verdict}`,
          ).toBe(true);
        else
          expect(explanation.verdict, state).toBe(`finished (${run.status}) in '${state}': nothing will move it again`);
      }
      expect([...accepted.keys()].filter((state) => !explained.has(state))).toEqual([]);
      await runtime.close();
    });
  },
);

const sessionInput = (config: object = {}) => ({
  query: 'Make the failing test pass',
  created_at: T0,
  log_path: '/tmp/statewright-explain-s1.jsonl',
  config,
});

describe('explain, for a session', () => {
  it('waiting for approval: the pending tool call with the events that approve and deny it, its timeout, and the verdict', async () => {
    const clock = new ManualClock(T0);
    const runtime = await runtimeAt(clock);
    await runtime.start('session', { id: 's1', input: sessionInput({ approval_timeout_ms: 60_000 }) });
    await runtime.dispatch('s1', { type: 'agent.session', sessionId: 'claude-1' });
    clock.advance(5_000);
    await runtime.dispatch('s1', {
      type: 'APPROVAL_REQUESTED',
      approval_id: 'a1',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
    });
    const explanation = await explainRun(runtime, 's1');
    expect(explanation).toMatchObject({
      state: 'waiting_input',
      since: T0 + 5_000,
      deadlines: [{ name: 'approvalTimeout', at: T0 + 65_000, event: 'APPROVAL_TIMEOUT' }],
      waitingFor: [
        {
          kind: 'approval',
          id: 'a1',
          summary: 'Bash wants approval',
          detail: '{"command":"rm -rf build"}',
          approve: { type: 'APPROVAL_RESOLVED', approval_id: 'a1', decision: 'approved' },
          deny: { type: 'APPROVAL_RESOLVED', approval_id: 'a1', decision: 'denied' },
        },
      ],
      // The tool call by what it does (its command), not by its id.
      verdict: `waiting for a person to approve or deny Bash 'rm -rf build' (APPROVAL_RESOLVED); APPROVAL_TIMEOUT fails it at ${iso(T0 + 65_000)}`,
    });
    expect(explanation.accepts.find((a) => a.type === 'APPROVAL_RESOLVED')!.needs).toMatchObject({
      fields: ['approval_id', 'decision'],
      schema: { type: 'object', required: ['type', 'approval_id', 'decision'] },
    });
    // A second request re-enters waiting_input: the session has still been waiting since the first.
    clock.advance(1_000);
    await runtime.dispatch('s1', {
      type: 'APPROVAL_REQUESTED',
      approval_id: 'a2',
      tool_name: 'Edit',
      tool_input: { file: 'x' },
    });
    const twoPending = await explainRun(runtime, 's1');
    expect(twoPending.since).toBe(T0 + 5_000);
    expect(twoPending.waitingFor!.map((w) => w.id)).toEqual(['a1', 'a2']);
    expect(twoPending.verdict).toBe(
      `waiting for a person to approve or deny Bash 'rm -rf build', Edit 'a2' (APPROVAL_RESOLVED); APPROVAL_TIMEOUT fails it at ${iso(T0 + 65_000)}`,
    );
    // The templates are real events: sending the approve ones takes the session back to running.
    await runtime.dispatch('s1', twoPending.waitingFor![1]!.approve!);
    expect((await runtime.dispatch('s1', explanation.waitingFor![0]!.approve!)).state).toBe('running');
    await runtime.close();
  });

  it('starting: the start timeout is armed at its instant, and the agent process is reported once spawned', async () => {
    const runtime = await runtimeAt();
    await runtime.start('session', { id: 's2', input: sessionInput({ start_timeout_ms: 30_000 }) });
    await runtime.dispatch('s2', {
      type: 'agent.spawned',
      pid: process.pid,
      pidStart: 'unknown',
      logPath: '/nonexistent/log.jsonl',
    });
    const explanation = await explainRun(runtime, 's2');
    expect(explanation.deadlines).toEqual([{ name: 'startTimeout', at: T0 + 30_000, event: 'START_TIMEOUT' }]);
    expect(explanation.agent).toEqual({ pid: process.pid, alive: true, lastWriteAt: null });
    expect(explanation.verdict).toBe(
      `waiting for the agent to report its session id (agent.session); START_TIMEOUT fails it at ${iso(T0 + 30_000)}`,
    );
    await runtime.close();
  });
});

const SUPERVISOR = 'supervisor:claude:1';
const EXECUTOR = 'executor:codex:1';

describe('explain, for a task', () => {
  it('waiting on a lease: the holder, its expiry and last heartbeat, the lease timer, and then that it ran out', async () => {
    const clock = new ManualClock(T0);
    const runtime = await runtimeAt(clock);
    await runtime.start('task', { id: 't1', input: { lease: { ttlMs: 90_000 } } });
    await runtime.dispatch('t1', { type: 'create_task', agent: SUPERVISOR, task: 'Write done.txt' });
    const unclaimed = await explainRun(runtime, 't1');
    expect(unclaimed.verdict).toBe(
      'waiting for the executor to send check, consult or ask_human; nobody holds the lease: the first executor to claim takes the task',
    );
    clock.advance(1_000);
    await runtime.dispatch('t1', { type: 'claim', agent: EXECUTOR });
    const held = await explainRun(runtime, 't1');
    expect(held).toMatchObject({
      state: 'Active.Working.Executing',
      lease: { holder: EXECUTOR, expiresAt: T0 + 91_000, lastHeartbeat: T0 + 1_000 },
      deadlines: [{ name: 'lease-timer', at: T0 + 91_000, event: 'lease_expired' }],
      verdict: `waiting for the executor to send check, consult or ask_human; ${EXECUTOR} holds the lease until ${iso(T0 + 91_000)} (lease_expired fires then unless it sends a heartbeat)`,
    });
    expect(held.accepts.find((a) => a.type === 'check')!.needs).toEqual({ fields: ['agent'], roles: ['executor'] });
    const expired = new Promise<void>((resolve) =>
      runtime.subscribe((step) => step.event?.type === 'lease_expired' && resolve()),
    );
    clock.advance(90_000);
    await expired;
    const lapsed = await explainRun(runtime, 't1');
    expect(lapsed.deadlines).toEqual([]);
    expect(lapsed.verdict).toBe(
      `waiting for the executor to send check, consult or ask_human; the lease of ${EXECUTOR} ran out at ${iso(T0 + 91_000)}, so another agent of its role may claim the task`,
    );
    await runtime.close();
  });

  it('waiting for a person: the question, and the last refused event with why', async () => {
    const runtime = await runtimeAt();
    await runtime.start('task', { id: 't2' });
    await runtime.dispatch('t2', { type: 'create_task', agent: SUPERVISOR, task: 'Write done.txt' });
    await runtime.dispatch('t2', { type: 'claim', agent: EXECUTOR });
    await runtime.dispatch('t2', { type: 'ask_human', agent: EXECUTOR, question: 'Which port?' });
    const refusal = await runtime
      .dispatch('t2', { type: 'answer', agent: EXECUTOR, answer: '8080' })
      .catch((error: Error) => error);
    const explanation = await explainRun(runtime, 't2');
    expect(explanation).toMatchObject({
      state: 'AwaitingHuman',
      waitingFor: [{ kind: 'question', id: 'human-question', summary: 'Which port?' }],
      lastRefused: {
        event: { type: 'answer', agent: EXECUTOR, answer: '8080' },
        error: 'RoleError',
        message: (refusal as Error).message,
      },
    });
    expect(explanation.verdict).toMatch(/^waiting for the human to send answer; /);
    await runtime.close();
  });

  it('an event the state does not take is refused naming the events it accepts', async () => {
    const runtime = await runtimeAt();
    await runtime.start('task', { id: 't3' });
    const error = await runtime
      .dispatch('t3', { type: 'submit', agent: EXECUTOR, summary: 'done' })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toMatchObject({
      accepts: ['create_task'],
      message: "Invalid transition: cannot apply event 'submit' in state 'Idle'; 'Idle' accepts create_task",
    });
    await runtime.close();
  });
});

describe('explain, offline from a store', () => {
  it('reads a run no live process hosts, on a store without leases, and says nothing moves it until one does', async () => {
    const store = jsonFileStore(testDir('explain-offline'));
    const clock = new ManualClock(T0);
    const runtime = await createRuntime({
      store,
      machines: lifecycles,
      clock,
      recover: false,
      owner: { id: 'gone-host', pid: 2 ** 22 + 17, pidStart: 'never' },
    });
    await runtime.start('session', { id: 's3', input: sessionInput({ start_timeout_ms: 30_000 }) });
    await runtime.close();
    const explanation = await explainRun({ store, machines: lifecycles, clock }, 's3');
    expect(explanation.owner).toMatchObject({ id: 'gone-host', alive: false });
    expect(explanation.lastRefused).toBeUndefined();
    expect(explanation.verdict).toMatch(
      /^no live process hosts it, and its timer and agent run only in one: start `statewright serve` on its store to run them; then: waiting for the agent to report its session id/,
    );
    await expect(explainRun({ store, machines: lifecycles }, 'nope')).rejects.toThrow("Unknown run 'nope'");
    await store.close();
  });

  it('on a store with leases, a run whose runtime closed is taken over at the next sweep of any host', async () => {
    const store = memoryStore();
    const clock = new ManualClock(T0);
    const runtime = await createRuntime({
      store,
      machines: lifecycles,
      clock,
      recover: false,
      owner: { id: 'gone-host', pid: 2 ** 22 + 17, pidStart: 'never' },
    });
    await runtime.start('session', { id: 's3', input: sessionInput({ start_timeout_ms: 30_000 }) });
    await runtime.close();
    const explanation = await explainRun({ store, machines: lifecycles, clock }, 's3');
    // Closed without a hand-over: its actors were ended, and its lease left to run out, still held.
    expect(explanation.hostLease).toMatchObject({ holder: 'gone-host', state: 'held', epoch: 1, expired: true });
    expect(explanation.wakeAt).toBe(T0 + 30_000);
    expect(explanation.verdict).toMatch(
      /^its host 'gone-host' stopped renewing its lease \(expired at \S+, last heartbeat \d+ ms ago\): taken over at the next sweep of any host, which applies its recovery rule; then: waiting for the agent to report its session id/,
    );
  });
});
