/**
 * The registry (registry.ts) with only the built-in lifecycles a command needs: a CLI command on a
 * store moves or reads the runs of one or two lifecycles, and building every built-in machine (its
 * statechart, its transition tables, its zod schemas) cost more than the rest of its start-up
 * (bench/cli-startup.bench.ts). The config is read whole, once; each built-in is imported when a
 * command first names it. A name neither built in nor the config's gets every built-in, so that
 * an `UnknownMachineError` lists them all.
 */
import type { Lifecycle, Lifecycles } from '../../machines/lifecycle.js';
import { findConfig, type ConfigLocation } from './find-config.js';
import type { Registry } from './registry.js';
import { mergeRegistry } from './registry-merge.js';

/** Each built-in lifecycle by name, imported alone (machines/index.ts imports them all). */
const BUILT_IN_LOADERS: Readonly<Record<string, () => Promise<Lifecycle>>> = {
  execution: () => import('../../machines/execution/index.js').then((m) => m.executionDefinition),
  'review-loop': () => import('../../machines/review-loop/index.js').then((m) => m.reviewLoopDefinition),
  task: () => import('../../machines/task/index.js').then((m) => m.taskDefinition),
  session: () => import('../../machines/session/index.js').then((m) => m.sessionDefinition),
  codon: () => import('../../machines/codon/index.js').then((m) => m.codonDefinition),
  'codon-run': () => import('../../machines/codon-run/index.js').then((m) => m.codonRunDefinition),
};

/**
 * `(needs) => registry`: with `needs`, the config's lifecycles and the built-ins among `needs`;
 * without, every built-in (`loadRegistry`'s). The config is found, run and checked once.
 */
export function registryLoader(location: ConfigLocation): (needs?: readonly string[]) => Promise<Registry> {
  let config: ReturnType<typeof readConfig> | undefined;
  let all: Promise<Lifecycles> | undefined;
  const loaded = new Map<string, Promise<Lifecycle>>();
  return async (needs) => {
    const read = await (config ??= readConfig(location));
    const own = new Set(read?.config.machines.map((lifecycle) => lifecycle.name));
    const wanted = read?.config.builtins === false ? [] : (needs?.filter((name) => !own.has(name)) ?? undefined);
    const builtIns =
      wanted === undefined || wanted.some((name) => !Object.hasOwn(BUILT_IN_LOADERS, name))
        ? await (all ??= import('../../machines/index.js').then((m) => m.lifecycles))
        : Object.fromEntries(
            await Promise.all(
              wanted.map(async (name) => {
                let lifecycle = loaded.get(name);
                if (!lifecycle) loaded.set(name, (lifecycle = BUILT_IN_LOADERS[name]!()));
                return [name, await lifecycle] as const;
              }),
            ),
          );
    if (!read) return { machines: builtIns, actors: {}, fromConfig: [] };
    return { ...mergeRegistry(read.config, read.file, builtIns), source: read.source };
  };
}

async function readConfig(location: ConfigLocation) {
  const file = findConfig(location);
  if (file === undefined) return undefined;
  // Its checks (zod) and its loader only when there is a config to read.
  const [{ importConfig }, { checkConfig }] = await Promise.all([
    import('./import-config.js'),
    import('./config-schema.js'),
  ]);
  const { value, source } = await importConfig(file);
  return { file, config: checkConfig(file, value), source };
}
