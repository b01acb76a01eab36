/**
 * The lifecycles a command works with: the built-in ones, with the config's added or put in their
 * place. serve, the CLI, check and viz all take them from here.
 */
import { lifecycles as builtIns } from '../../machines/index.js';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors } from '../actor-contract/run-handle.js';
import { checkConfig } from './config-schema.js';
import type { StatewrightConfig } from './define-config.js';
import type { NamedLifecycle } from './define-lifecycle.js';
import { findConfig, type ConfigLocation } from './find-config.js';
import { importConfig } from './import-config.js';
import type { ConfigSource } from './config-source.js';
import { mergeRegistry } from './registry-merge.js';

/** `M`: the lifecycles by name, typed where the config is known (`registryOf(config)`), else any. */
export interface Registry<M extends Lifecycles = Lifecycles> {
  readonly machines: M;
  /** The actors the config gives its machines (the built-in lifecycles' come from their services). */
  readonly actors: MachineActors;
  /** The config file read, or undefined: the built-in lifecycles alone. */
  readonly file?: string;
  /** The config's `store`, with a relative sqlite or json path made absolute from the config's folder. */
  readonly store?: string;
  /** The names the config defines or redefines. */
  readonly fromConfig: readonly string[];
  /** What the config was read from (its file, the files it imports, their hash), when read from a file. */
  readonly source?: ConfigSource;
}

/**
 * The lifecycles a config makes, by name: the built-ins with the config's added or put in their
 * place (only the config's with `builtins: false`); any, where the config's `builtins` is not known.
 */
export type RegistryMachines<L extends readonly NamedLifecycle[], B extends boolean> = AsLifecycles<
  [B] extends [false] ? ByName<L> : [B] extends [true] ? Replaced<typeof builtIns, ByName<L>> : Lifecycles
>;

type ByName<L extends readonly NamedLifecycle[]> = { readonly [E in L[number] as E['name']]: E };
type AsLifecycles<T> = T extends Lifecycles ? T : Lifecycles;
type Replaced<A, C> = {
  readonly [K in Exclude<keyof A, keyof C> | keyof C]: K extends keyof C ? C[K] : A[K & keyof A];
};

/** The built-in lifecycles alone, as every command has them without a config. */
export const BUILT_IN_REGISTRY: Registry = { machines: builtIns, actors: {}, fromConfig: [] };

/** Finds (`findConfig`), runs and checks the config, and merges it with the built-ins. */
export async function loadRegistry(location: ConfigLocation = {}): Promise<Registry> {
  const file = findConfig(location);
  if (file === undefined) return BUILT_IN_REGISTRY;
  const { value, source } = await importConfig(file);
  return { ...registryOf(checkConfig(file, value), file), source };
}

/** The registry a config makes: `file` is where it was read from, for relative store paths. */
export function registryOf<const L extends readonly NamedLifecycle[], B extends boolean = true>(
  config: StatewrightConfig<L, B>,
  file?: string,
): Registry<RegistryMachines<L, B>> {
  const merged = mergeRegistry(config, file, builtIns);
  return { ...merged, machines: merged.machines as RegistryMachines<L, B> };
}
