/**
 * What the codon machine hands each of its actors. The machine names the actors and builds their
 * input; the implementations (src/actors, src/codon) are given with `machine.provide({ actors })`.
 */
import type { RigOperation } from './config.js';
import type { PlannedTransition, SentinelState } from './types.js';

/** The shared agent process actor's input (src/actors/agent-process.ts). */
export type { AgentInput } from '../agent-input.js';

/** Identifies one attempt of one codon, so a checkpoint made before a crash is found, not made twice. */
export interface CheckpointIdentity {
  workTree: string;
  runId: string;
  codonId: string;
  /** Unique per codon attempt (a retry is a new attempt). */
  attempt: string;
}

/** Rig setup, in preparing: run the operations, commit a rig checkpoint, send preparing -> starting (or -> failed). */
export interface RigSetupInput extends CheckpointIdentity {
  operations: RigOperation[];
}

/** The final checkpoint: commit, then send `transition` with the SHA (or `checkpointFailed(transition)`). */
export interface CheckpointInput extends CheckpointIdentity {
  transition: PlannedTransition;
}

/** Sentinel draining, in completing-sentinels: report `sentinels.drained`, or `sentinels.timedOut` at `deadline`. */
export interface SentinelDrainInput {
  /** The sentinels the codon loaded, as last recorded: what is reported for one that cannot be found. */
  sentinels: SentinelState[];
  /** Absolute, on the runtime's clock: a restored run times out at the original deadline. */
  deadline: number;
  timeoutMs: number;
}

/** The names under which the codon machine invokes its actors. */
export const CODON_ACTORS = ['rigSetup', 'agent', 'codonCheckpoint', 'sentinelDrain'] as const;
