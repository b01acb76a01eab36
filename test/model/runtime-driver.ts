import type { AnyStateMachine } from 'xstate';
import type { LifecycleName } from '../../machines/index.js';
import { lifecycles } from '../../machines/index.js';
import { InvalidTransitionError, MetadataValidationError } from '../../src/graph/index.js';
import type { Runtime } from '../../src/runtime/index.js';
import type { Driver } from './harness.js';

/**
 * Drives a new run of a registered lifecycle through a real runtime: each step is a `dispatch`
 * that resolves only after the store committed it. Give the runtime a manual clock, so durable
 * timers fire only when a path says so (as their event), never by accident. Any host with the
 * runtime's start, dispatch and getSnapshot will do (a Restate deployment's client too).
 */
export function runtimeDriver(
  runtime: Pick<Runtime, 'start' | 'dispatch' | 'getSnapshot'>,
  machine: string,
  input?: unknown,
): Driver & { readonly runId: string } {
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
      const before = await runtime.getSnapshot(runId);
      try {
        return (await runtime.dispatch(runId, event as never)).value;
      } catch (error) {
        // Paths also carry invalid payloads, which the model predicts change nothing: a refusal
        // then leaves the run where it was, and the harness compares that state as usual. It must
        // commit nothing, and be one the machine itself makes: refusing what the machine accepts
        // is the runtime's fault.
        if (!(error instanceof InvalidTransitionError) && !(error instanceof MetadataValidationError)) throw error;
        const after = await runtime.getSnapshot(runId);
        if (after.seq !== before.seq)
          throw new Error(
            `'${event.type}' was refused (${error.message}) yet committed: seq ${before.seq} -> ${after.seq}`,
          );
        const logic: AnyStateMachine = lifecycles[machine as LifecycleName].machine;
        const resolved = logic.resolveState({ value: after.value, context: after.context });
        // The runtime stamps a missing `at` before the machine sees the event; so does this check.
        if (resolved.can({ at: after.updatedAt, ...event } as never)) throw error;
        return after.value;
      }
    },
    async stop() {},
  };
}
