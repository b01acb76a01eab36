/**
 * The codon lifecycle wired like every other: its actors (rig setup, the agent process, sentinels,
 * git checkpoints) for `createRuntime({ actors })`, and the seed's state manager attached to that
 * runtime. The runtime's recovery marks the runs and codons a dead host left as crashed; attaching
 * loads the stored codon runs once (the only scan), validates them, and follows the commits.
 */
import type { LifecycleWiring } from '../runtime/lifecycle-wiring.js';
import { codonActors, type CodonActorOptions } from './actors.js';
import { CodonStateManager, type CodonStateManagerOptions } from './state-manager.js';

export type CodonLifecycleOptions = CodonActorOptions & CodonStateManagerOptions;

export function codonLifecycle(options: CodonLifecycleOptions = {}): LifecycleWiring<CodonStateManager> {
  return {
    actors: { codon: codonActors(options) },
    async attach(runtime) {
      const manager = new CodonStateManager(runtime, options);
      await manager.load();
      if (options.validation !== false) manager.validation = await manager.validate(options.validation);
      return manager;
    },
  };
}
