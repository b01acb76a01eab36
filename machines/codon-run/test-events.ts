/** The codon run's events for generated tests (`statewright test`, `statewright/testing`, this project's every-path suites), and its input. */
import type { EventObject } from 'xstate';

const AT = Date.UTC(2026, 0, 1, 12);

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

export const codonRunTesting = {
  testInputs: [
    {
      runId: 'run-1',
      runFolder: 'runs/run-1',
      gitBranch: 'main',
      startingConditions: { type: 'fresh' },
      serverPid: 4242,
      startedAt: AT,
    },
  ],
  testEvents: (type: string): EventObject[] => (byType[type] ?? []).map((event) => ({ ...event, at: AT })),
};
