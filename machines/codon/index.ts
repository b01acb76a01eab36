/**
 * The codon lifecycle of Hankweave: its machine, its per-state data, the seed's pure checks and
 * helpers, and the run level (runs of codons, costs). The parts live in ./codon/, one concept each.
 */
export { codonMachine, AGENT_STOP, type CodonContext } from './machine.js';
export {
  codonRun,
  codonRunMachine,
  codonRunInputSchema,
  runLevelEventSchemas,
  type CodonRunContext,
  type CodonRunInput,
  type CodonRunLevelEvent,
  type RunLevelStatus,
} from '../codon-run/machine.js';
export { recoverCodon, recoverCodonRun } from './recover.js';
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
export { checkpointFailed, decideFinalTransition, rigSetupFailed, type AgentExit, type ExitFacts, type StopRequest } from './final-status.js';
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
