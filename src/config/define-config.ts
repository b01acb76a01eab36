/**
 * `defineConfig`: what `statewright.config.ts` default-exports. Every command reads it: serve hosts
 * its machines with their actors, the CLI starts, sends to, explains, checks and draws them.
 */
import type { LifecycleName } from '../../machines/index.js';
import type { ActorFactory, MachineActors } from '../actor-contract/run-handle.js';
import type { NamedLifecycle } from './define-lifecycle.js';

/**
 * `L`: the config's lifecycles, `B`: its `builtins` (`false`: only the config's machines). A config
 * from `defineConfig` keeps both, so `registryOf(config).machines` types a runtime's names and events.
 */
export interface StatewrightConfig<
  L extends readonly NamedLifecycle[] = readonly NamedLifecycle[],
  B extends boolean = boolean,
> {
  /**
   * The user's lifecycles (`defineLifecycle`). One named like a built-in (`session`) replaces it:
   * that is how a built-in lifecycle is edited, with the next version and a migration.
   */
  readonly machines: L;
  /**
   * Real implementations of the actors the user's machines name, by machine then by actor name,
   * as `createRuntime({ actors })` takes them. The built-in lifecycles bring their own.
   */
  readonly actors?: ConfigActors<NoInfer<L>, NoInfer<B>>;
  /** The store every command uses when `--store` is not given (`sqlite:<file>`, `json:<dir>`, `postgres:<url>`). */
  readonly store?: string;
  /** Host the built-in lifecycles beside the user's (default true); false hosts only `machines`. */
  readonly builtins?: B;
}

/**
 * The config's `actors`: keyed by the names of the machines it hosts (its own, and the built-ins
 * unless `builtins: false`), so a misspelled machine does not compile; any name where they are not
 * known (a config read from a file).
 */
export type ConfigActors<L extends readonly NamedLifecycle[], B extends boolean> =
  string extends ConfigMachineName<L, B>
    ? MachineActors
    : { readonly [K in ConfigMachineName<L, B>]?: Readonly<Record<string, ActorFactory>> };

type ConfigMachineName<L extends readonly NamedLifecycle[], B extends boolean> =
  | L[number]['name']
  | ([B] extends [false] ? never : LifecycleName);

export function defineConfig<const L extends readonly NamedLifecycle[], const B extends boolean = true>(
  config: StatewrightConfig<L, B>,
): StatewrightConfig<L, B> {
  return config;
}
