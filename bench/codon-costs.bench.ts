/**
 * The codon run level's cost questions on a long history (200 runs of 10 codons): answered from the
 * incremental cache, beside the source's way (rebuild the cache by scanning every run on each cost
 * event), and the reducer's rate for cost events, which ask the codon machine whether they apply.
 * Then the same cost events through the state manager on the runtime (each one a committed step of a
 * hosted codon run, the document fed from the commit), and its cost queries.
 */
import {
  applyCodonRunEvent,
  emptyCodonRunsState,
  getTotalCost,
  rebuildCostCache,
  type CodonRunEvent,
  type CodonRunsState,
} from '../machines/codon/index.js';
import { lifecycles } from '../machines/index.js';
import { codonLifecycle } from '../src/codon/codon-lifecycle.js';
import type { CodonStateEvent } from '../src/codon/state-manager.js';
import { createRuntime, ManualClock } from '../src/runtime/index.js';
import { memoryStore } from '../src/stores/index.js';
import { measure, measureAsync, printTable } from './measure.js';

const tokens = { inputTokens: 10, outputTokens: 10, cacheCreationTokens: 0, cacheReadTokens: 0 };
let at = Date.UTC(2026, 0, 1);
const apply = (state: CodonRunsState, event: Omit<CodonRunEvent, 'at'>) =>
  applyCodonRunEvent(state, { ...event, at: (at += 1000) } as CodonRunEvent);

function history(runs: number, codons: number): CodonRunsState {
  let state = emptyCodonRunsState();
  for (let r = 0; r < runs; r++) {
    const runId = `run-${r}`;
    state = apply(state, {
      type: 'RunStarted',
      data: { runId, runFolder: runId, gitBranch: runId, startingConditions: { type: 'fresh' }, serverPid: 1 },
    });
    for (let c = 0; c < codons; c++) {
      const codonId = `codon-${c}`;
      const ct = (from: string, to: string, metadata?: object) =>
        ({ type: 'CodonTransitioned', data: { runId, codonId, from, to, metadata } }) as CodonRunEvent;
      state = apply(state, { type: 'CodonStarted', data: { runId, codonId } });
      state = apply(state, ct('preparing', 'starting'));
      state = apply(state, ct('starting', 'initializing', { claudePid: 10, claudeLogPath: 'log' }));
      state = apply(state, ct('initializing', 'running', { claudeSessionId: 's' }));
      state = apply(state, { type: 'CostsUpdated', data: { runId, codonId, cost: 0.01, tokens } });
      if (r < runs - 1 || c < codons - 1)
        state = apply(state, ct('running', 'completed', { checkpointSha: 'abc1234' }));
    }
  }
  return state;
}

const state = history(200, 10);
const last = { runId: 'run-199', codonId: 'codon-9' };
const increment = { type: 'CostsIncremented', data: { ...last, costDelta: 0.001, tokensDelta: tokens } } as const;

const EVENTS = 2000;
let sink = 0;
const cached = measure('cost event, cache kept incrementally', EVENTS, () => {
  let s = state;
  for (let i = 0; i < EVENTS; i++) s = apply(s, increment);
  sink += getTotalCost(s);
});
const rescanned = measure('cost event, cache rebuilt by scan (source)', EVENTS, () => {
  let s = state;
  for (let i = 0; i < EVENTS; i++) {
    s = apply(s, increment);
    s = { ...s, costs: rebuildCostCache(s) };
  }
  sink += getTotalCost(s);
});
printTable(
  'codon cost events on 200 runs x 10 codons',
  rescanned,
  [rescanned, cached],
  'the cache never scans: cost events stay fast as history grows',
);

const QUERIES = 1_000_000;
const fromCache = measure('getTotalCost() from the cache', QUERIES, () => {
  for (let i = 0; i < QUERIES; i++) sink += getTotalCost(state);
});
const SCANS = 2000;
const byScan = measure('total cost by scanning every run', SCANS, () => {
  for (let i = 0; i < SCANS; i++) sink += rebuildCostCache(state).total;
});
printTable('codon total cost queries on 200 runs x 10 codons', byScan, [byScan, fromCache]);

// The state manager on the runtime (memory store), with 20 runs x 10 codons of history behind it.
const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles, clock: new ManualClock() });
const manager = await codonLifecycle({
  codonDefaults: { workTree: '/nonexistent', agent: { command: ['claude'], logPath: 'agent.log' } },
  validation: false,
}).attach(runtime);
for (let r = 0; r < 20; r++) {
  const runId = `run-${r}`;
  manager.transition({
    type: 'RunStarted',
    data: { runId, runFolder: runId, gitBranch: runId, startingConditions: { type: 'fresh' }, serverPid: 1 },
  });
  for (let c = 0; c < 10; c++) {
    const codonId = `codon-${c}`;
    const ct = (from: string, to: string, metadata?: object) =>
      ({ type: 'CodonTransitioned', data: { runId, codonId, from, to, metadata } }) as CodonStateEvent;
    manager.transition({ type: 'CodonStarted', data: { runId, codonId } });
    manager.transition(ct('preparing', 'starting'));
    manager.transition(ct('starting', 'initializing', { claudePid: 10, claudeLogPath: 'log' }));
    manager.transition(ct('initializing', 'running', { claudeSessionId: 's' }));
    manager.transition({ type: 'CostsUpdated', data: { runId, codonId, cost: 0.01, tokens } });
    if (r < 19 || c < 9) manager.transition(ct('running', 'completed', { checkpointSha: 'abc1234' }));
  }
}
await manager.waitForPendingTransitions();
const managed = {
  type: 'CostsIncremented',
  data: { runId: 'run-19', codonId: 'codon-9', costDelta: 0.001, tokensDelta: tokens },
} as const;
const MANAGED = 500;
const viaManager = await measureAsync(
  'cost event via the state manager, committed (memory store)',
  MANAGED,
  async () => {
    for (let i = 0; i < MANAGED; i++) manager.transition(managed);
    await manager.waitForPendingTransitions();
  },
);
const viaReducer = measure('cost event via the pure reducer (no store)', EVENTS, () => {
  let s = state;
  for (let i = 0; i < EVENTS; i++) s = apply(s, increment);
  sink += getTotalCost(s);
});
printTable('codon cost events: the state manager on the runtime against the pure reducer', viaReducer, [
  viaReducer,
  viaManager,
]);
const managerQueries = measure('manager.getTotalCost()', QUERIES, () => {
  for (let i = 0; i < QUERIES; i++) sink += manager.getTotalCost() + manager.getCurrentRunCost();
});
printTable('codon cost queries through the state manager', byScan, [byScan, managerQueries]);
await manager.close();
await runtime.close();
if (sink === 0) console.log('(no work done)');
