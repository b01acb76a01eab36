/**
 * The codon lifecycle's API (`statewright/codon`): the seed's state manager on the durable runtime,
 * validation on load, the real actors (rig setup, the agent process, sentinels, git checkpoints),
 * and the machine's types and pure helpers.
 */
export { codonLifecycle, type CodonLifecycleOptions } from './codon-lifecycle.js';
export {
  CodonStateManager,
  type CodonStateManagerOptions,
  type CodonStateManagerEvents,
  type CodonStateEvent,
  type CodonLaunch,
  type CodonRunningEvent,
  type TransitionErrorEvent,
} from './state-manager.js';
export type { CodonAttempt } from './runs-view.js';
export {
  validateCodonState,
  type StateValidation,
  type StateIssue,
  type StateIssueType,
  type ValidationOptions,
} from './validate-state.js';
export type { CodonActorOptions } from './actors.js';
export { codonCheckpoint } from './checkpoint-actor.js';
export { rigSetup } from './rig-setup.js';
export { createSentinelDrain, type SentinelDirectory } from './sentinel-drain.js';
export { SentinelQueue, type Sentinel, type LlmCall, type SentinelQueueOptions } from './sentinel.js';
export {
  createCheckpoint,
  CheckpointError,
  type Checkpoint,
  type CheckpointRequest,
  type CheckpointType,
} from './git-checkpoint.js';
export {
  agentProcess,
  createAgentProcess,
  type AgentProcessInput,
  type AgentProcessOptions,
} from '../actors/agent-process.js';
export * from '../../machines/codon/index.js';
export * from '../../machines/codon-run/index.js';
