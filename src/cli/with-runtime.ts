import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime/index.js';
import { openStore } from './open-store.js';

/**
 * Runs `body` with a runtime on the store `--store` names, then closes both. Commands that only
 * look or send one event do not take over other processes' runs (`recover: false`).
 */
export async function withRuntime<T>(storeSpec: string | undefined, body: (runtime: Runtime) => Promise<T>, options: Partial<RuntimeOptions> = {}): Promise<T> {
  const store = await openStore(storeSpec);
  try {
    const runtime = await createRuntime({ store, machines: lifecycles, recover: false, ...options });
    try {
      return await body(runtime);
    } finally {
      await runtime.close();
    }
  } finally {
    await store.close();
  }
}
