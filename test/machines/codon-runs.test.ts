import { describe, expect, it } from 'vitest';
import {
  InvalidTransitionError,
  MetadataValidationError,
  RecordReferenceError,
  applyCodonRunEvent,
  emptyCodonRunsState,
  getCodonCost,
  getCurrentRunCost,
  getTotalCost,
  rebuildCostCache,
  type CodonRunEvent,
  type CodonRunsState,
  type CodonStatus,
  type SentinelState,
} from '../../machines/codon/index.js';

const T0 = Date.UTC(2026, 2, 1, 9);
const iso = (at: number) => new Date(at).toISOString();
const tokens = (n: number) => ({ inputTokens: n, outputTokens: n, cacheCreationTokens: 0, cacheReadTokens: 0 });

/** Deep-freezes a state, so a reducer that mutated its input would throw. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) frozen(child);
  }
  return value;
}

/** Applies events in order, each stamped a second after the last, checking purity and the cost cache on the way. */
function play(
  events: Array<Omit<CodonRunEvent, 'at'> & { at?: number }>,
  from: CodonRunsState = emptyCodonRunsState(),
) {
  let state = from;
  let at = T0;
  for (const event of events) {
    at += 1000;
    state = applyCodonRunEvent(frozen(state), { at, ...event } as CodonRunEvent);
    expect(state.costs.total).toBeCloseTo(rebuildCostCache(state).total, 9);
    expect(state.costs.currentRun).toBeCloseTo(rebuildCostCache(state).currentRun, 9);
  }
  return { state, at };
}

const runStarted = (runId: string): CodonRunEvent => ({
  type: 'RunStarted',
  data: {
    runId,
    runFolder: `/p/.hankweave/runs/${runId}`,
    gitBranch: runId,
    startingConditions: { type: 'fresh' },
    serverPid: 4000,
  },
});
const codonStarted = (runId: string, codonId: string): CodonRunEvent => ({
  type: 'CodonStarted',
  data: { runId, codonId },
});
const ct = (runId: string, codonId: string, from: CodonStatus, to: CodonStatus, metadata?: object): CodonRunEvent =>
  ({ type: 'CodonTransitioned', data: { runId, codonId, from, to, ...(metadata && { metadata }) } }) as CodonRunEvent;
const toRunning = (runId: string, codonId: string): CodonRunEvent[] => [
  codonStarted(runId, codonId),
  ct(runId, codonId, 'preparing', 'starting', { checkpointSha: 'a1a1a1a' }),
  ct(runId, codonId, 'starting', 'initializing', { claudePid: 321, claudeLogPath: `runs/${runId}/${codonId}.log` }),
  ct(runId, codonId, 'initializing', 'running', { claudeSessionId: `${codonId}-session` }),
];
const failure = (failedDuring: CodonStatus) => ({
  exitCode: 1,
  failureReason: { type: 'api-error', retriable: true },
  failedDuring,
});

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('runs', () => {
  it('puts a new run first, makes it current, and refuses a run id twice', () => {
    const { state } = play([runStarted('r1'), runStarted('r2')]);
    expect(state.runs.map((r) => r.runId)).toEqual(['r2', 'r1']);
    expect(state.currentRunId).toBe('r2');
    expect(state.runs[0]).toMatchObject({ status: 'running', codons: [], startTime: iso(T0 + 2000), serverPid: 4000 });
    const error = thrown(() => applyCodonRunEvent(state, { ...runStarted('r1'), at: T0 }));
    expect(error).toBeInstanceOf(RecordReferenceError);
    expect(error.message).toBe("RunStarted: run 'r1' already exists. Start a new run under a new id.");
  });

  it('names what is missing from a payload', () => {
    const error = thrown(() =>
      applyCodonRunEvent(emptyCodonRunsState(), { type: 'RunStarted', data: { runId: 'r1' }, at: T0 } as never),
    );
    expect(error).toBeInstanceOf(MetadataValidationError);
    expect([...(error as MetadataValidationError).missing].sort()).toEqual([
      'gitBranch',
      'runFolder',
      'serverPid',
      'startingConditions',
    ]);
    expect(() => applyCodonRunEvent(emptyCodonRunsState(), { type: 'Nonsense', data: {} } as never)).toThrow(
      /Unknown event type 'Nonsense'/,
    );
  });

  it('ends a run: completed or failed, no current run, current-run cost 0, total kept', () => {
    const { state } = play([
      runStarted('r1'),
      ...toRunning('r1', 'c1'),
      { type: 'CostsUpdated', data: { runId: 'r1', codonId: 'c1', cost: 0.4, tokens: tokens(10) } },
    ]);
    expect(getCurrentRunCost(state)).toBe(0.4);
    const { state: ended, at } = play([{ type: 'RunFailed', data: { runId: 'r1' } }], state);
    expect(ended.runs[0]).toMatchObject({ status: 'failed', endTime: iso(at) });
    expect(ended.currentRunId).toBeNull();
    expect(getCurrentRunCost(ended)).toBe(0);
    expect(getTotalCost(ended)).toBe(0.4);
    expect(thrown(() => play([{ type: 'RunCompleted', data: { runId: 'r1' } }], ended))).toBeInstanceOf(
      InvalidTransitionError,
    );
    expect(thrown(() => play([{ type: 'RunCompleted', data: { runId: 'nope' } }], ended))).toBeInstanceOf(
      RecordReferenceError,
    );
  });

  it('marks a crashed run and fails its active codon as "Server crashed", keeping its cost', () => {
    const sentinel: SentinelState = {
      id: 's',
      model: 'm',
      loadedAt: iso(T0),
      llmCallCount: 1,
      failedLLMCalls: 0,
      totalCost: 0.01,
      status: 'active',
    };
    const { state } = play([
      runStarted('r1'),
      ...toRunning('r1', 'c1'),
      {
        type: 'SentinelStatesUpdated',
        data: { runId: 'r1', codonId: 'c1', sentinelStates: [sentinel], totalCost: 0.01 },
      },
      { type: 'CostsUpdated', data: { runId: 'r1', codonId: 'c1', cost: 0.25, tokens: tokens(5) } },
      ct('r1', 'c1', 'running', 'completing-sentinels'),
      {
        type: 'RunCrashed',
        data: { runId: 'r1', detectedAt: '2026-03-02T00:00:00.000Z', lastCodonStatus: 'completing-sentinels' },
      },
    ]);
    expect(state.runs[0]).toMatchObject({ status: 'crashed', endTime: '2026-03-02T00:00:00.000Z' });
    expect(state.runs[0]!.codons[0]).toMatchObject({
      status: 'failed',
      failedDuring: 'completing-sentinels',
      exitCode: -1,
      failureReason: { type: 'unknown', retriable: false, message: 'Server crashed' },
      partialCost: 0.25,
      partialTokens: tokens(5),
      endTime: '2026-03-02T00:00:00.000Z',
      claudeSessionId: 'c1-session',
      sentinels: { executed: [sentinel], totalCost: 0.01 },
    });
    expect(state.currentRunId).toBe('r1');
    expect(getTotalCost(state)).toBe(0.25);
  });

  it('records the initial checkpoint', () => {
    expect(play([{ type: 'InitialCheckpointSet', data: { sha: 'beef123' } }]).state.initialCheckpoint).toBe('beef123');
  });
});

describe('codons in a run', () => {
  it('builds the record state by state from CodonTransitioned and the cost events', () => {
    const { state, at } = play([
      runStarted('r1'),
      ...toRunning('r1', 'c1'),
      { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'c1', costDelta: 0.01, tokensDelta: tokens(100) } },
      {
        type: 'CostsIncremented',
        data: { runId: 'r1', codonId: 'c1', costDelta: 0.02, tokensDelta: { outputTokens: 50 } },
      },
      { type: 'AssistantMessageCountUpdated', data: { runId: 'r1', codonId: 'c1', newCount: 2 } },
      { type: 'ExtensionCountUpdated', data: { runId: 'r1', codonId: 'c1', extensionCount: 1 } },
      { type: 'CodonFinalCostSet', data: { runId: 'r1', codonId: 'c1', finalCost: 0.05, finalTokens: tokens(200) } },
      ct('r1', 'c1', 'running', 'completed', { checkpointSha: 'c0mp1e7', resultMessageReceived: true }),
    ]);
    expect(state.runs[0]!.codons).toEqual([
      {
        codonId: 'c1',
        status: 'completed',
        startTime: iso(T0 + 2000),
        endTime: iso(at),
        rigSetupCheckpoint: 'a1a1a1a',
        claudePid: 321,
        claudeLogPath: 'runs/r1/c1.log',
        claudeSessionId: 'c1-session',
        extensionCount: 1,
        assistantMessageCount: 2,
        exitCode: 0,
        finalCost: 0.05,
        finalTokens: tokens(200),
        resultMessageReceived: true,
        completionCheckpoint: 'c0mp1e7',
      },
    ]);
    expect(getCurrentRunCost(state)).toBe(0.05);
  });

  it('counts cost events only while the codon runs', () => {
    const costs = (cost: number): CodonRunEvent => ({
      type: 'CostsUpdated',
      data: { runId: 'r1', codonId: 'c1', cost, tokens: tokens(1) },
    });
    const { state: preparing } = play([runStarted('r1'), codonStarted('r1', 'c1')]);
    expect(applyCodonRunEvent(preparing, { ...costs(1), at: T0 })).toBe(preparing);
    const { state: draining } = play(
      [...toRunning('r1', 'c1').slice(1), costs(0.1), ct('r1', 'c1', 'running', 'completing-sentinels')],
      preparing,
    );
    expect(applyCodonRunEvent(draining, { ...costs(9), at: T0 })).toBe(draining);
    expect(
      applyCodonRunEvent(draining, {
        type: 'CodonFinalCostSet',
        data: { runId: 'r1', codonId: 'c1', finalCost: 9, finalTokens: tokens(9) },
        at: T0,
      }),
    ).toBe(draining);
    const { state: done } = play(
      [ct('r1', 'c1', 'completing-sentinels', 'completed', { checkpointSha: 'abc1234' })],
      draining,
    );
    expect(applyCodonRunEvent(done, { ...costs(9), at: T0 })).toBe(done);
    expect(getTotalCost(done)).toBe(0.1);
  });

  it('appends a record on retry and aims every later event at the new attempt', () => {
    const { state } = play([
      runStarted('r1'),
      ...toRunning('r1', 'c1'),
      { type: 'CostsUpdated', data: { runId: 'r1', codonId: 'c1', cost: 0.5, tokens: tokens(5) } },
      ct('r1', 'c1', 'running', 'failed', failure('running')),
      ...toRunning('r1', 'c1'),
      // The source's find-first lookup sent these to the failed attempt and dropped them.
      { type: 'CostsUpdated', data: { runId: 'r1', codonId: 'c1', cost: 0.2, tokens: tokens(2) } },
      { type: 'AssistantMessageCountUpdated', data: { runId: 'r1', codonId: 'c1', newCount: 4 } },
    ]);
    const [first, second] = state.runs[0]!.codons;
    expect(first).toMatchObject({ status: 'failed', partialCost: 0.5 });
    expect(second).toMatchObject({ status: 'running', currentCost: 0.2, assistantMessageCount: 4 });
    expect(getCurrentRunCost(state)).toBeCloseTo(0.7, 12);
  });

  it('refuses to start a codon that is still active', () => {
    const { state } = play([runStarted('r1'), codonStarted('r1', 'c1')]);
    const error = thrown(() => applyCodonRunEvent(state, { ...codonStarted('r1', 'c1'), at: T0 }));
    expect(error).toBeInstanceOf(RecordReferenceError);
    expect(error.message).toBe(
      "CodonStarted: codon 'c1' is still preparing in run 'r1'; it can start again once it has ended.",
    );
  });

  it('refuses a bad transition with the seed errors and changes nothing', () => {
    const { state } = play([runStarted('r1'), ...toRunning('r1', 'c1')]);
    const attempt = (event: CodonRunEvent) => {
      const before = JSON.stringify(state);
      const error = thrown(() => applyCodonRunEvent(state, { ...event, at: T0 }));
      expect(JSON.stringify(state)).toBe(before);
      return error;
    };
    expect(attempt(ct('r1', 'c1', 'running', 'preparing')).message).toBe(
      'Invalid transition from running to preparing',
    );
    expect(attempt(ct('r1', 'c1', 'completed', 'running')).message).toBe(
      'Invalid transition from completed to running',
    );
    const stale = attempt(ct('r1', 'c1', 'initializing', 'running', { claudeSessionId: 'x' }));
    expect(stale).toBeInstanceOf(InvalidTransitionError);
    expect(stale.message).toBe("Invalid transition from running to running: the event says it leaves 'initializing'");
    const metadata = attempt(ct('r1', 'c1', 'running', 'completed', { checkpointSha: '' }));
    expect(metadata).toBeInstanceOf(MetadataValidationError);
    expect(attempt(ct('r1', 'nope', 'running', 'skipped', { skippedDuring: 'running' }))).toBeInstanceOf(
      RecordReferenceError,
    );
  });

  it('renames loaded sentinels to executed on every terminal state', () => {
    const sentinel: SentinelState = {
      id: 's',
      model: 'm',
      loadedAt: iso(T0),
      llmCallCount: 0,
      failedLLMCalls: 0,
      totalCost: 0,
      status: 'active',
    };
    const loaded = (codonId: string): CodonRunEvent => ({
      type: 'SentinelStatesUpdated',
      data: { runId: 'r1', codonId, sentinelStates: [sentinel], totalCost: 0 },
    });
    const { state } = play([
      runStarted('r1'),
      ...toRunning('r1', 'a').slice(0, 2),
      loaded('a'),
      ct('r1', 'a', 'starting', 'failed', failure('starting')),
      ...toRunning('r1', 'b'),
      loaded('b'),
      ct('r1', 'b', 'running', 'skipped', { skippedDuring: 'running' }),
      ...toRunning('r1', 'c'),
      loaded('c'),
      ct('r1', 'c', 'running', 'completing-sentinels'),
      ct('r1', 'c', 'completing-sentinels', 'completed', { checkpointSha: 'abc1234' }),
    ]);
    for (const codon of state.runs[0]!.codons) {
      expect(codon).toMatchObject({ sentinels: { executed: [sentinel], totalCost: 0 } });
      expect(codon).not.toHaveProperty('sentinels.loaded');
    }
  });

  it('records checkpoints where the source does', () => {
    const cp = (codonId: string, checkpointType: string, sha: string): CodonRunEvent =>
      ({
        type: 'CheckpointCreated',
        data: { runId: 'r1', codonId, checkpointType, sha, branch: 'r1' },
      }) as CodonRunEvent;
    const { state } = play([
      runStarted('r1'),
      codonStarted('r1', 'a'),
      cp('a', 'rig-setup', 'r1g5e7u'),
      ct('r1', 'a', 'preparing', 'failed', failure('preparing')),
      cp('a', 'error', 'e4404e4'),
      cp('a', 'completed', 'c0c0c0c'),
      cp('a', 'rig-setup', 'r1g0002'),
      ...toRunning('r1', 'b').slice(0, 2),
      ct('r1', 'b', 'starting', 'skipped', { skippedDuring: 'starting' }),
      cp('b', 'skipped', '5k1p5k1'),
      { type: 'AssistantMessageCountUpdated', data: { runId: 'r1', codonId: 'b', newCount: 3 } },
    ]);
    const [a, b] = state.runs[0]!.codons;
    expect(a).toMatchObject({ status: 'failed', errorCheckpoint: 'e4404e4', rigSetupCheckpoint: 'r1g0002' });
    expect(a).not.toHaveProperty('completionCheckpoint');
    expect(b).toMatchObject({ status: 'skipped', skipCheckpoint: '5k1p5k1', rigSetupCheckpoint: 'a1a1a1a' });
    expect(b).not.toHaveProperty('assistantMessageCount');
  });
});

describe('the cost cache', () => {
  /** A small deterministic generator (mulberry32), so the sequence is the same on every run. */
  function random(seed: number) {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('equals a full scan after every event of a long mixed history, without scanning to answer', () => {
    const next = random(7);
    const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
    let state = emptyCodonRunsState();
    let at = T0;
    let applied = 0;
    for (let round = 0; round < 6; round++) {
      const runId = `run-${round}`;
      state = applyCodonRunEvent(state, { ...runStarted(runId), at: (at += 1000) });
      for (let c = 0; c < 8; c++) {
        const codonId = `codon-${c % 5}`;
        for (const event of toRunning(runId, codonId))
          state = applyCodonRunEvent(state, { ...event, at: (at += 1000) } as CodonRunEvent);
        for (let i = 0; i < 12; i++) {
          const cost = Math.round(next() * 1000) / 10_000;
          const event = pick<CodonRunEvent>([
            { type: 'CostsUpdated', data: { runId, codonId, cost, tokens: tokens(i) } },
            { type: 'CostsIncremented', data: { runId, codonId, costDelta: cost, tokensDelta: tokens(1) } },
            { type: 'CodonFinalCostSet', data: { runId, codonId, finalCost: cost, finalTokens: tokens(i) } },
          ]);
          state = applyCodonRunEvent(state, { ...event, at: (at += 1000) } as CodonRunEvent);
          applied++;
        }
        const end = pick<CodonStatus>(['completed', 'failed', 'skipped']);
        const metadata =
          end === 'completed'
            ? { checkpointSha: 'abc1234' }
            : end === 'failed'
              ? failure('running')
              : { skippedDuring: 'running' };
        state = applyCodonRunEvent(state, { ...ct(runId, codonId, 'running', end, metadata), at: (at += 1000) });
        expect(state.costs.total).toBeCloseTo(rebuildCostCache(state).total, 9);
        expect(state.costs.currentRun).toBeCloseTo(rebuildCostCache(state).currentRun, 9);
      }
      if (round % 2 === 0)
        state = applyCodonRunEvent(state, { type: 'RunCompleted', data: { runId }, at: (at += 1000) });
    }
    expect(applied).toBe(6 * 8 * 12);
    const scanned = state.runs.flatMap((r) => r.codons).reduce((sum, codon) => sum + getCodonCost(codon), 0);
    expect(getTotalCost(state)).toBeCloseTo(scanned, 9);
    expect(getTotalCost(state)).toBeGreaterThan(0);
    expect(getCurrentRunCost(state)).toBe(rebuildCostCache(state).currentRun);
  });
});
