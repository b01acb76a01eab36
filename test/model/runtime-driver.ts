import type { EventObject, StateValue } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';
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
      return dispatchStep(runtime!, machine, runId, event);
    },
    async stop() {
      await runtime?.close();
      await store?.close();
    },
  };
}

/**
 * Dispatches one step of a model path and gives the state after it. A path may hold events the
 * machine refuses (a model's invalid payload samples), which XState ignores and the model expects
 * to leave the state as it was. Through the runtime such a step must be refused with a typed
 * error, commit nothing, and be one the machine itself refuses in the committed state: a refusal
 * of anything the machine accepts is rethrown.
 */
export async function dispatchStep(runtime: Runtime, machine: string, runId: string, event: EventObject): Promise<StateValue> {
  const before = await runtime.getSnapshot(runId);
  try {
    return (await runtime.dispatch(runId, event as never)).value;
  } catch (error) {
    if (!(error instanceof InvalidTransitionError || error instanceof MetadataValidationError)) throw error;
    const after = await runtime.getSnapshot(runId);
    if (after.seq !== before.seq) throw new Error(`'${event.type}' was refused (${error.message}) yet committed: seq ${before.seq} -> ${after.seq}`);
    const resolved = lifecycles[machine as LifecycleName].machine.resolveState({ value: after.value, context: after.context });
    // The runtime stamps a missing `at` before the machine sees the event; do the same here.
    if (resolved.can({ at: after.updatedAt, ...event } as never)) throw error;
    return after.value;
  }
}
