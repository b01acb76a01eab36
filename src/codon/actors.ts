/**
 * The real implementations of the actors the codon machine names: the codon lifecycle's actors
 * (`codonLifecycle(...).actors.codon`), or for `codonMachine.provide({ actors })`.
 */
import { agentProcess } from '../actors/agent-process.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import type { CODON_ACTORS } from '../../machines/codon/actor-inputs.js';
import { codonCheckpoint } from './checkpoint-actor.js';
import { rigSetup } from './rig-setup.js';
import { createSentinelDrain, type SentinelDirectory } from './sentinel-drain.js';

export interface CodonActorOptions {
  /** Where the drain finds each codon run's live sentinels; none by default. */
  sentinels?: SentinelDirectory;
  /** Replaces the agent process actor (a different agent protocol, or a test double). */
  agent?: ActorFactory;
}

export function codonActors(options: CodonActorOptions = {}): Record<(typeof CODON_ACTORS)[number], ActorFactory> {
  return {
    rigSetup,
    agent: options.agent ?? agentProcess,
    codonCheckpoint,
    sentinelDrain: createSentinelDrain(options.sentinels ?? (() => [])),
  };
}
