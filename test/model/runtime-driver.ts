import { lifecycles } from '../../machines/index.js';
import { createRuntime, ManualClock, type Runtime } from '../../src/runtime/index.js';
import type { Store } from '../../src/stores/index.js';
import type { Driver } from './harness.js';

/**
 * Drives a run of a registered lifecycle through the real runtime on `store`: each step is a
 * `dispatch` that resolves only after the store committed it. The clock is manual, so durable
 * timers fire only when a path says so (as their event), never by accident.
 */
export function runtimeDriver(machine: string, openStore: () => Store, input?: unknown): Driver {
  let runtime: Runtime | undefined;
  let store: Store | undefined;
  let runId = '';
  return {
    async start() {
      store = openStore();
      runtime = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(), recover: false });
      const run = await runtime.start(machine, { input });
      runId = run.runId;
      return run.value;
    },
    async send(event) {
      return (await runtime!.dispatch(runId, event as never)).value;
    },
    async stop() {
      await runtime?.close();
      await store?.close();
    },
  };
}
