/**
 * The seed's state-manager API on the durable runtime: the seed's events drive hosted codon and run
 * runs; the document it shows equals the pure reducer's (machines/codon/runs.ts, the oracle) for
 * the same events; stateChanged comes only after the commit; the queue's error rules; the cost
 * cache; crashed-run detection across a restart, the current run included.
 */
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import {
  InvalidTransitionError,
  MetadataValidationError,
  RecordReferenceError,
  applyCodonRunEvent,
  emptyCodonRunsState,
  rebuildCostCache,
  type CodonRunEvent,
  type CodonRunsState,
} from '../../machines/codon/index.js';
import { codonLifecycle } from '../../src/codon/codon-lifecycle.js';
import type { CodonStateEvent } from '../../src/codon/state-manager.js';
import { ManualClock, createRuntime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';

const T0 = Date.UTC(2026, 2, 1, 9);
const tokens = (n: number) => ({ inputTokens: n, outputTokens: n, cacheCreationTokens: 0, cacheReadTokens: 0 });
const launch = {
  workTree: '/tmp/statewright-nowhere',
  agent: { command: ['claude'], logPath: '/tmp/statewright-nowhere/agent.log' },
};
const DEAD_PID = 2 ** 22 + 17; // above Linux's pid_max: never a live process

async function open(store = memoryStore(), owner?: { pid: number; pidStart: string }) {
  const clock = new ManualClock(T0);
  // No codon actors: the seed's events alone drive the codons here, as in the seed's own tests.
  const runtime = await createRuntime({ store, machines: lifecycles, clock, ...(owner && { owner }) });
  const manager = await codonLifecycle({ codonDefaults: launch }).attach(runtime);
  return { store, clock, runtime, manager };
}

const started = (runId: string): CodonStateEvent => ({
  type: 'RunStarted',
  data: {
    runId,
    runFolder: `runs/${runId}`,
    gitBranch: 'main',
    startingConditions: { type: 'fresh' },
    serverPid: process.pid,
  },
});
const codon = (runId: string, codonId: string) => ({ runId, codonId });
const to = (runId: string, codonId: string, from: string, target: string, metadata?: object): CodonStateEvent =>
  ({
    type: 'CodonTransitioned',
    data: { ...codon(runId, codonId), from, to: target, ...(metadata && { metadata }) },
  }) as CodonStateEvent;
const toRunning = (runId: string, codonId: string): CodonStateEvent[] => [
  to(runId, codonId, 'preparing', 'starting', { checkpointSha: 'a1b2c3d' }),
  to(runId, codonId, 'starting', 'initializing', { claudePid: 4242, claudeLogPath: 'agent.log' }),
  to(runId, codonId, 'initializing', 'running', { claudeSessionId: 'session-1' }),
];
const failure = (from: string) => ({
  exitCode: 1,
  failureReason: { type: 'api-error', retriable: true, message: 'boom' },
  failedDuring: from,
});

/** Two runs: a codon that fails and is retried, costs of every kind, a completion, a second run. */
const story: CodonStateEvent[] = [
  started('run-1'),
  { type: 'InitialCheckpointSet', data: { sha: 'f00d' } },
  {
    type: 'CodonStarted',
    data: { ...codon('run-1', 'plan'), loopContext: { loopId: 'loop', iteration: 0, codonIndexInLoop: 0 } },
  },
  ...toRunning('run-1', 'plan'),
  { type: 'CostsIncremented', data: { ...codon('run-1', 'plan'), costDelta: 0.01, tokensDelta: tokens(10) } },
  { type: 'AssistantMessageCountUpdated', data: { ...codon('run-1', 'plan'), newCount: 1 } },
  { type: 'CostsUpdated', data: { ...codon('run-1', 'plan'), cost: 0.05, tokens: tokens(50) } },
  to('run-1', 'plan', 'running', 'failed', failure('running')),
  { type: 'CostsIncremented', data: { ...codon('run-1', 'plan'), costDelta: 9, tokensDelta: tokens(1) } }, // ignored: not running
  { type: 'CodonStarted', data: codon('run-1', 'plan') },
  ...toRunning('run-1', 'plan'),
  { type: 'CostsIncremented', data: { ...codon('run-1', 'plan'), costDelta: 0.02, tokensDelta: tokens(20) } },
  { type: 'ExtensionCountUpdated', data: { ...codon('run-1', 'plan'), extensionCount: 2 } },
  { type: 'CodonFinalCostSet', data: { ...codon('run-1', 'plan'), finalCost: 0.03, finalTokens: tokens(30) } },
  to('run-1', 'plan', 'running', 'completed', { checkpointSha: 'c0ffee', resultMessageReceived: true }),
  { type: 'RunCompleted', data: { runId: 'run-1' } },
  started('run-2'),
  { type: 'CodonStarted', data: codon('run-2', 'build') },
  ...toRunning('run-2', 'build'),
  { type: 'CostsIncremented', data: { ...codon('run-2', 'build'), costDelta: 0.5, tokensDelta: tokens(5) } },
];

/** The reducer's document for the same events, stamped with the same times. */
function oracle(events: Array<CodonStateEvent & { at: number }>): CodonRunsState {
  return events.reduce((state, event) => {
    if (event.type !== 'CodonStarted') return applyCodonRunEvent(state, event as CodonRunEvent);
    const { runId, codonId, loopContext } = event.data;
    return applyCodonRunEvent(state, {
      type: 'CodonStarted',
      data: { runId, codonId, ...(loopContext && { loopContext }) },
      at: event.at,
    });
  }, emptyCodonRunsState());
}

describe('the codon state manager on the runtime', () => {
  it('shows the same document as the seed reducer for the same events, with a cost cache that matches a rebuild', async () => {
    const { manager } = await open();
    const errors: Error[] = [];
    manager.on('transitionError', ({ error }) => errors.push(error));
    const stamped = story.map(
      (event, i) => ({ ...event, at: T0 + (i + 1) * 1000 }) as CodonStateEvent & { at: number },
    );
    for (const event of stamped) manager.transition(event);
    await manager.waitForPendingTransitions();
    expect(errors).toEqual([]);

    const expected = oracle(stamped);
    const state = manager.getState();
    expect(state.runs).toEqual(expected.runs);
    expect(state.currentRunId).toBe('run-2');
    expect(state.initialCheckpoint).toBe('f00d');
    expect(state.runs[1]!.codons.map((c) => c.status)).toEqual(['failed', 'completed']);
    expect(manager.getCurrentRunCost()).toBeCloseTo(0.5, 9);
    expect(manager.getTotalCost()).toBeCloseTo(0.05 + 0.03 + 0.5, 9);
    expect(manager.getTotalCost()).toBeCloseTo(rebuildCostCache(expected).total, 9);
    expect(manager.getCurrentRunCost()).toBeCloseTo(rebuildCostCache(expected).currentRun, 9);
    expect(manager.getAttempts('run-1', 'plan').map((a) => a.attemptId)).toEqual(['run-1/plan/1', 'run-1/plan/2']);
  });

  it('loads the same document and costs from the store after a restart', async () => {
    const first = await open();
    const finished: CodonStateEvent[] = [
      ...story,
      to('run-2', 'build', 'running', 'skipped', { skippedDuring: 'running' }),
      { type: 'CodonStarted', data: codon('run-2', 'build') },
      to('run-2', 'build', 'preparing', 'failed', failure('preparing')),
      { type: 'RunFailed', data: { runId: 'run-2' } },
    ];
    for (const [i, event] of finished.entries()) first.manager.transition({ ...event, at: T0 + i * 1000 });
    await first.manager.waitForPendingTransitions();
    const before = first.manager.getState();
    await first.runtime.close();

    const second = await open(first.store);
    expect({ ...second.manager.getState(), costs: undefined }).toEqual({ ...before, costs: undefined });
    expect(before.runs.map((r) => r.status)).toEqual(['failed', 'completed']);
    expect(before.costs.total).toBeCloseTo(0.08, 9); // the skipped attempt counts 0, as in the seed
    expect(second.manager.getTotalCost()).toBeCloseTo(before.costs.total, 9);
    expect(second.manager.getCurrentRunCost()).toBeCloseTo(before.costs.currentRun, 9);
  });

  it('emits stateChanged only for committed steps, and codonRunning on entering running', async () => {
    const { manager, store } = await open();
    const checks: Array<Promise<void>> = [];
    const running: string[] = [];
    manager.on('codonRunning', (e) => running.push(`${e.attemptId}:${e.from}`));
    manager.on('stateChanged', (event, step) => {
      // The store already holds the step when the listener hears of it.
      checks.push(store.load(step.runId).then((row) => expect(row?.seq).toBeGreaterThanOrEqual(step.seq)));
      checks.push(
        store
          .history(step.runId)
          .then((log) => expect(log.some((r) => r.seq === step.seq) || step.seq === 0).toBe(true)),
      );
      expect(event?.type ?? 'start').toBeTruthy();
    });
    for (const event of [
      started('r'),
      { type: 'CodonStarted', data: codon('r', 'c') } as CodonStateEvent,
      ...toRunning('r', 'c'),
    ])
      manager.transition(event);
    await manager.waitForPendingTransitions();
    await Promise.all(checks);
    expect(checks.length).toBe(2 * 5);
    expect(running).toEqual(['r/c/1:initializing']);
  });

  it('reports an invalid transition and goes on; halts on any other error until the next transition', async () => {
    const { manager } = await open();
    const errors: Error[] = [];
    manager.on('transitionError', ({ error }) => errors.push(error));
    manager.transition(started('r'));
    manager.transition({ type: 'CodonStarted', data: codon('r', 'c') });
    manager.transition(to('r', 'c', 'preparing', 'completed', { checkpointSha: 'abc' })); // not an edge
    manager.transition(to('r', 'c', 'preparing', 'starting'));
    await manager.waitForPendingTransitions();
    expect(errors.map((e) => e.constructor)).toEqual([InvalidTransitionError]);
    expect(errors[0]!.message).toContain('Invalid transition from preparing to completed');
    expect(manager.getCodon('r', 'c')?.status).toBe('starting');

    manager.transition(to('r', 'c', 'starting', 'initializing', { claudeLogPath: 'x.log' })); // claudePid missing: halts
    manager.transition(to('r', 'c', 'starting', 'skipped', { skippedDuring: 'starting' }));
    await manager.waitForPendingTransitions();
    expect(errors[1]).toBeInstanceOf(MetadataValidationError);
    expect(errors[1]!.message).toContain('claudePid');
    expect(manager.pendingCount).toBe(1);
    expect(manager.getCodon('r', 'c')?.status).toBe('starting');

    await manager.transitionAndWait({
      type: 'CostsIncremented',
      data: { ...codon('r', 'c'), costDelta: 1, tokensDelta: {} },
    }); // resumes the queue
    expect(manager.getCodon('r', 'c')?.status).toBe('skipped');
    expect(manager.getTotalCost()).toBe(0); // the cost arrived outside running: ignored, as in the seed
  });

  it('transitionAndWait rejects with the typed error; unknown runs and codons are named', async () => {
    const { manager } = await open();
    manager.on('transitionError', () => {});
    await expect(manager.transitionAndWait({ type: 'RunCompleted', data: { runId: 'nope' } })).rejects.toThrow(
      RecordReferenceError,
    );
    await manager.transitionAndWait(started('r'));
    await expect(manager.transitionAndWait(started('r'))).rejects.toThrow(/already exists/);
    await expect(
      manager.transitionAndWait({ type: 'CostsUpdated', data: { ...codon('r', 'ghost'), cost: 1, tokens: tokens(1) } }),
    ).rejects.toThrow(/no codon 'ghost' in run 'r'/);
    await expect(
      manager.transitionAndWait({
        type: 'CodonStarted',
        data: { ...codon('r', 'c'), agent: { command: [], logPath: '' } },
      }),
    ).rejects.toThrow(MetadataValidationError);
    await manager.transitionAndWait({ type: 'RunFailed', data: { runId: 'r' } });
    await expect(manager.transitionAndWait({ type: 'CodonStarted', data: codon('r', 'c') })).rejects.toThrow(
      /run 'r' is failed/,
    );
    expect(manager.currentRunId).toBeNull();
  });

  it('RunCrashed fails the active codon with "Server crashed" and keeps its partial cost', async () => {
    const { manager } = await open();
    for (const event of [
      started('r'),
      { type: 'CodonStarted', data: codon('r', 'c') } as CodonStateEvent,
      ...toRunning('r', 'c'),
    ])
      manager.transition(event);
    manager.transition({
      type: 'CostsIncremented',
      data: { ...codon('r', 'c'), costDelta: 0.25, tokensDelta: tokens(3) },
    });
    await manager.transitionAndWait({
      type: 'RunCrashed',
      data: { runId: 'r', detectedAt: new Date(T0).toISOString(), lastCodonStatus: 'running' },
    });
    const run = manager.getState().runs[0]!;
    expect(run.status).toBe('crashed');
    expect(run.codons[0]).toMatchObject({
      status: 'failed',
      exitCode: -1,
      failedDuring: 'running',
      partialCost: 0.25,
      failureReason: { message: 'Server crashed' },
    });
    expect(manager.currentRunId).toBe('r'); // RunCrashed does not clear the current run (seed)
    expect(manager.getCurrentRunCost()).toBeCloseTo(0.25, 9);
  });

  it('after the owning process died, a restart marks every running run crashed, the current one included', async () => {
    const store = memoryStore();
    const dead = await open(store, { pid: DEAD_PID, pidStart: '1' });
    for (const event of [
      started('old'),
      { type: 'CodonStarted', data: codon('old', 'a') } as CodonStateEvent,
      ...toRunning('old', 'a'),
    ])
      dead.manager.transition(event);
    dead.manager.transition({
      type: 'CostsIncremented',
      data: { ...codon('old', 'a'), costDelta: 0.1, tokensDelta: tokens(1) },
    });
    for (const event of [
      started('current'),
      { type: 'CodonStarted', data: codon('current', 'b') } as CodonStateEvent,
      ...toRunning('current', 'b'),
    ])
      dead.manager.transition(event);
    dead.manager.transition({
      type: 'CostsIncremented',
      data: { ...codon('current', 'b'), costDelta: 0.2, tokensDelta: tokens(2) },
    });
    await dead.manager.waitForPendingTransitions();
    expect(dead.manager.currentRunId).toBe('current');
    await dead.manager.close(); // the process "dies": its runtime is abandoned, never closed

    const restarted = await open(store);
    await restarted.runtime.flush();
    const runs = Object.fromEntries(restarted.manager.getState().runs.map((r) => [r.runId, r]));
    for (const [runId, cost] of [
      ['old', 0.1],
      ['current', 0.2],
    ] as const) {
      expect(runs[runId]!.status).toBe('crashed');
      expect(runs[runId]!.codons[0]).toMatchObject({
        status: 'failed',
        exitCode: -1,
        partialCost: cost,
        failureReason: { message: 'Server crashed', retriable: false },
      });
    }
    expect(restarted.manager.currentRunId).toBe('current');
    expect(restarted.manager.getTotalCost()).toBeCloseTo(0.3, 9);
    const history = await restarted.runtime.history('current/b/1');
    expect(history.at(-1)).toMatchObject({ actor: 'recovery', after: 'failed' });
  });
});
