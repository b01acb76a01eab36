import type { EventObject } from 'xstate';
import type { LifecycleModel } from './model.js';

const AT = Date.UTC(2026, 0, 1, 12);

/**
 * The run level of ../shared/seeds/hankweave-codon-state-machine.txt: the seed gives runs no
 * transition table, only the Run* events and the statuses they set ("RunCompleted: Marks run as
 * successfully finished", "RunFailed: Marks run as failed", "RunCrashed: Marks run as crashed
 * (detected on recovery)"), with `running` as the status RunStarted creates (seed-systems.md §1.1).
 */
const seedTable: Array<readonly [string, string, string]> = [
  ['running', 'RunCompleted', 'completed'],
  ['running', 'RunFailed', 'failed'],
  ['running', 'RunCrashed', 'crashed'],
];

const additions: Array<readonly [string, string, string, string]> = [
  [
    'running',
    'InitialCheckpointSet',
    'running',
    'seed event "Records initial project state": kept on the run it was set during',
  ],
];

const run = (extra: object = {}) => ({ runId: 'run-1', ...extra });
const byType: Record<string, Array<EventObject & Record<string, unknown>>> = {
  RunCompleted: [
    { type: 'RunCompleted', data: run() },
    { type: 'RunCompleted', data: { runId: 'another-run' } },
  ],
  RunFailed: [
    { type: 'RunFailed', data: run() },
    { type: 'RunFailed', data: {} },
  ],
  RunCrashed: [
    { type: 'RunCrashed', data: run({ detectedAt: new Date(AT).toISOString(), lastCodonStatus: 'running' }) },
    { type: 'RunCrashed', data: run({ detectedAt: 'yesterday', lastCodonStatus: 'running' }) },
  ],
  InitialCheckpointSet: [
    { type: 'InitialCheckpointSet', data: { sha: 'a1b2c3d' } },
    { type: 'InitialCheckpointSet', data: { sha: ' ' } },
  ],
};

export const codonRunModel: LifecycleModel = {
  seedTable,
  additions,
  input: {
    runId: 'run-1',
    runFolder: 'runs/run-1',
    gitBranch: 'main',
    startingConditions: { type: 'fresh' },
    serverPid: 4242,
    startedAt: AT,
  },
  samples: (type) => (byType[type] ?? []).map((event) => ({ ...event, at: AT })),
};
