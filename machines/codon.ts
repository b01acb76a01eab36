/**
 * The codon lifecycle of Hankweave: its machine, its per-state data, the seed's pure checks and
 * helpers, and the run level (runs of codons, costs). The parts live in ./codon/, one concept each.
 */
export { codonMachine, AGENT_STOP, type CodonContext } from './codon/machine.js';
export {
  codonRun,
  codonRunMachine,
  codonRunInputSchema,
  runLevelEventSchemas,
  type CodonRunContext,
  type CodonRunInput,
  type CodonRunLevelEvent,
  type RunLevelStatus,
} from './codon/run-machine.js';
export { recoverCodon, recoverCodonRun } from './codon/recover.js';
export { codon } from './codon/status.js';
export { InvalidTransitionError } from '../src/graph/invalid-transition-error.js';
export { MetadataValidationError } from '../src/graph/metadata-guard.js';
export { MissingTimestampError, RecordReferenceError } from './codon/errors.js';
export * from './codon/types.js';
export type * from './codon/events.js';
export type * from './codon/actor-inputs.js';
export { CODON_ACTORS } from './codon/actor-inputs.js';
export { parseCodonInput, type CodonInput, type CodonConfig, type RigOperation, type AgentLaunch } from './codon/config.js';
export { codonMetadataSchemas, codonEventDataSchemas } from './codon/schemas.js';
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
} from './codon/record.js';
export { checkpointFailed, decideFinalTransition, rigSetupFailed, type AgentExit, type ExitFacts, type StopRequest } from './codon/final-status.js';
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
} from './codon/runs.js';
