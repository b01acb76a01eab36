/**
 * `defineConfig`: what `statewright.config.ts` default-exports. Every command reads it: serve hosts
 * its machines with their actors, the CLI starts, sends to, explains, checks and draws them.
 */
import type { MachineActors } from '../actor-contract/run-handle.js';
import type { NamedLifecycle } from './define-lifecycle.js';

export interface StatewrightConfig<L extends readonly NamedLifecycle[] = readonly NamedLifecycle[]> {
  /**
   * The user's lifecycles (`defineLifecycle`). One named like a built-in (`session`) replaces it:
   * that is how a built-in lifecycle is edited, with the next version and a migration.
   */
  readonly machines: L;
  /**
   * Real implementations of the actors the user's machines name, by machine then by actor name,
   * as `createRuntime({ actors })` takes them. The built-in lifecycles bring their own.
   */
  readonly actors?: MachineActors;
  /** The store every command uses when `--store` is not given (`sqlite:<file>`, `json:<dir>`, `postgres:<url>`). */
  readonly store?: string;
  /** Host the built-in lifecycles beside the user's (default true); false hosts only `machines`. */
  readonly builtins?: boolean;
}

export function defineConfig<const L extends readonly NamedLifecycle[]>(
  config: StatewrightConfig<L>,
): StatewrightConfig<L> {
  return config;
}
