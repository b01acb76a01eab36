import type { Lifecycles } from '../../machines/lifecycle.js';
import type { Runtime, RuntimeOptions } from '../runtime/index.js';
import type { Store } from '../stores/index.js';
import { openStore } from './open-store.js';

/**
 * Runs `body` with a runtime hosting `machines` on the store `--store` names (or the one `store`
 * opens), then closes both. Commands that only look or send one event do not take over other processes' runs
 * (`recover: false`). The runtime is loaded here, when a command opens a store: a command that
 * goes through a serve instead loads none of it.
 */
export async function withRuntime<T>(
  store: string | undefined | (() => Promise<Store>),
  machines: Lifecycles,
  body: (runtime: Runtime) => Promise<T>,
  options: Partial<RuntimeOptions> = {},
): Promise<T> {
  const opened = await openRuntimeOn(store, machines, options);
  try {
    return await body(opened.runtime);
  } finally {
    await opened.close();
  }
}

/** The runtime of `withRuntime`, open until `close` (of the runtime, then the store): for a body that outlives a call. */
export async function openRuntimeOn(
  store: string | undefined | (() => Promise<Store>),
  machines: Lifecycles,
  options: Partial<RuntimeOptions> = {},
): Promise<{ readonly runtime: Runtime; close(): Promise<void> }> {
  const [{ createRuntime }, opened] = await Promise.all([
    import('../runtime/index.js'),
    typeof store === 'function' ? store() : openStore(store),
  ]);
  try {
    const runtime = await createRuntime({ store: opened, machines, recover: false, ...options });
    return {
      runtime,
      async close() {
        try {
          await runtime.close();
        } finally {
          await opened.close();
        }
      },
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/**
 * `withRuntime` with only the lifecycles the command needs: the store is opened first and asked
 * which (`needs`: the machine of the run it moves, the machines its runs belong to), then the
 * registry is loaded with those alone (`Cli.registry(needs)`: the other built-in machines are never
 * built) and the runtime opened on that store. `body` gets the registry's lifecycles too.
 */
export async function withRuntimeFor<T>(
  store: () => Promise<Store>,
  needs: (store: Store) => Promise<readonly string[]>,
  registry: (needs: readonly string[]) => Promise<{ readonly machines: Lifecycles }>,
  body: (runtime: Runtime, machines: Lifecycles) => Promise<T>,
  options: Partial<RuntimeOptions> = {},
): Promise<T> {
  const opened = await store();
  let machines: Lifecycles;
  try {
    machines = (await registry(await needs(opened))).machines;
  } catch (error) {
    await opened.close();
    throw error;
  }
  return withRuntime(
    async () => opened,
    machines,
    (runtime) => body(runtime, machines),
    options,
  );
}

/** The lifecycle of the run `runId`, as a `needs` of `withRuntimeFor`: none for a run the store lacks. */
export const machineOfRun =
  (runId: string) =>
  async (store: Store): Promise<readonly string[]> => {
    // An id the store cannot look up is the runtime's to refuse, with its own error.
    const run = await store.load(runId).catch(() => undefined);
    return run ? [run.machine] : [];
  };

/**
 * The store and the lifecycles it needs (as `withRuntimeFor`), for a command that only reads it:
 * no runtime is loaded (`status`, `history` read what the runtime's `list`, `getSnapshot` and
 * `history` would read, straight from the store). Closed after `body`.
 */
export async function readStoreFor<T>(
  store: () => Promise<Store>,
  needs: (store: Store) => Promise<readonly string[]>,
  registry: (needs: readonly string[]) => Promise<{ readonly machines: Lifecycles }>,
  body: (store: Store, machines: Lifecycles) => Promise<T>,
): Promise<T> {
  const opened = await store();
  try {
    const { machines } = await registry(await needs(opened));
    return await body(opened, machines);
  } finally {
    await opened.close();
  }
}
