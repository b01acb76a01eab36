/** How a config's lifecycles join the built-in ones (registry.ts): apart, so that a registry can be made of some built-ins only (lazy-registry.ts). */
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { MachineActors } from '../actor-contract/run-handle.js';
import type { StatewrightConfig } from './define-config.js';
import type { NamedLifecycle } from './define-lifecycle.js';

/** The fields of a `Registry` a config makes (registry.ts), with `builtIns` for the built-in lifecycles. */
export function mergeRegistry(
  config: Pick<StatewrightConfig<readonly NamedLifecycle[], boolean>, 'builtins' | 'machines' | 'store'> & {
    readonly actors?: unknown;
  },
  file: string | undefined,
  builtIns: Lifecycles,
): {
  machines: Lifecycles;
  actors: MachineActors;
  fromConfig: readonly string[];
  file?: string;
  store?: string;
} {
  const machines: Record<string, Lifecycles[string]> = config.builtins === false ? {} : { ...builtIns };
  for (const lifecycle of config.machines) machines[lifecycle.name] = lifecycle;
  return {
    machines,
    actors: (config.actors ?? {}) as MachineActors,
    fromConfig: config.machines.map((lifecycle) => lifecycle.name),
    ...(file !== undefined && { file }),
    ...(config.store !== undefined && { store: storeBeside(config.store, file) }),
  };
}

/** `sqlite:runs.db` in a config means beside the config, wherever the command runs. */
function storeBeside(store: string, file: string | undefined): string {
  const match = /^(sqlite|json):(.+)$/.exec(store);
  if (!match || file === undefined || isAbsolute(match[2]!)) return store;
  return `${match[1]}:${resolve(dirname(file), match[2]!)}`;
}
