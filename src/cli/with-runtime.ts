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
