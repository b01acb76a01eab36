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
  const [{ createRuntime }, opened] = await Promise.all([
    import('../runtime/index.js'),
    typeof store === 'function' ? store() : openStore(store),
  ]);
  try {
    const runtime = await createRuntime({ store: opened, machines, recover: false, ...options });
    try {
      return await body(runtime);
    } finally {
      await runtime.close();
    }
  } finally {
    await opened.close();
  }
}
