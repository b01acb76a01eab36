import { codonRunTesting } from '../../../machines/codon-run/test-events.js';
import type { LifecycleModel } from './model.js';

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

export const codonRunModel: LifecycleModel = {
  seedTable,
  additions,
  input: codonRunTesting.testInputs[0],
  samples: codonRunTesting.testEvents,
};
