/** What the codon lifecycle needs beyond its machine: its actors, git checkpoints and sentinels. */
export { codonActors, type CodonActorOptions } from './actors.js';
export { codonCheckpoint } from './checkpoint-actor.js';
export { rigSetup } from './rig-setup.js';
export { createSentinelDrain, type SentinelDirectory } from './sentinel-drain.js';
export { SentinelQueue, type Sentinel, type LlmCall, type SentinelQueueOptions } from './sentinel.js';
export { createCheckpoint, CheckpointError, type Checkpoint, type CheckpointRequest, type CheckpointType } from './git-checkpoint.js';
