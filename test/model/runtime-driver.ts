import { InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';
import type { Runtime } from '../../src/runtime/index.js';
import type { Driver } from './harness.js';

/**
 * Drives a new run of a registered lifecycle through a real runtime: each step is a `dispatch`
 * that resolves only after the store committed it. Give the runtime a manual clock, so durable
 * timers fire only when a path says so (as their event), never by accident.
 */
export function runtimeDriver(runtime: Runtime, machine: string, input?: unknown): Driver & { readonly runId: string } {
  let runId = '';
  return {
    get runId() {
      return runId;
    },
    async start() {
      const run = await runtime.start(machine, { input });
      runId = run.runId;
      return run.value;
    },
    async send(event) {
      try {
        return (await runtime.dispatch(runId, event as never)).value;
      } catch (error) {
        // Paths also carry invalid payloads, which the model predicts change nothing: a refusal
        // then leaves the run where it was, and the harness compares that state as usual.
        if (!(error instanceof InvalidTransitionError) && !(error instanceof MetadataValidationError)) throw error;
        return (await runtime.getSnapshot(runId)).value;
      }
    },
    async stop() {},
  };
}
