/**
 * The codon lifecycle of Hankweave (seed: hankweave-codon-state-machine.txt): one agent step of a
 * run. What its users import, and its entry in the registry. Every part is here: machine, context,
 * events, guards, recover, explain, and beside them config (input), types (the per-state record),
 * record (functions on it), schemas, status (the seed's pure checks), final-status (how it ends),
 * actor-inputs, errors, and runs (the seed's run-level document, fed by codon and codon-run runs).
 * The run level as a lifecycle of its own is machines/codon-run/.
 */
import type { Lifecycle } from '../lifecycle.js';
import { codonStatusNote, explainCodon } from './explain.js';
import { codonMachine } from './machine.js';
import { recoverCodon } from './recover.js';
import { codonTesting } from './test-events.js';

export { codonMachine, AGENT_STOP } from './machine.js';
export type { CodonContext } from './context.js';
export { recoverCodon } from './recover.js';
export { codon } from './status.js';
export { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
export { MetadataValidationError } from '../../src/graph/metadata-guard.js';
export { MissingTimestampError, RecordReferenceError } from './errors.js';
export * from './types.js';
export type * from './events.js';
export type * from './actor-inputs.js';
export { CODON_ACTORS } from './actor-inputs.js';
export { parseCodonInput, type CodonInput, type CodonConfig, type RigOperation, type AgentLaunch } from './config.js';
export { codonMetadataSchemas, codonEventDataSchemas } from './schemas.js';
export {
  applyCodonUpdate,
  costOf,
  createCodonRecord,
  crashedRecord,
  crashMetadata,
  enterCodonState,
  getCodonCost,
  getCodonTokens,
  loadedSentinels,
  tokensFromUsage,
  type CostsPerMTok,
} from './record.js';
export {
  checkpointFailed,
  decideFinalTransition,
  rigSetupFailed,
  type AgentExit,
  type ExitFacts,
  type StopRequest,
} from './final-status.js';
export {
  applyCodonRunEvent,
  codonAccepts,
  codonRunEventSchemas,
  emptyCodonRunsState,
  getCurrentRunCost,
  getTotalCost,
  rebuildCostCache,
  CODON_RUN_EVENT_TYPES,
  type CodonRun,
  type CodonRunEvent,
  type CodonRunsState,
  type CostCache,
  type RunStatus,
  type StartingConditions,
} from './runs.js';

export const codonDefinition = {
  machine: codonMachine,
  version: 1,
  strict: true,
  summary: 'Hankweave codon: rig setup, agent process, sentinels, costs and git checkpoints in 8 states',
  recover: recoverCodon,
  explain: explainCodon,
  statusNote: codonStatusNote,
  // Its driver and agent process report the rest.
  personEvents: ['codon.skip', 'codon.stop'],
  ...codonTesting,
} satisfies Lifecycle;
