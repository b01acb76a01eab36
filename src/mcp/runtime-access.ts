/** Runs on a `Runtime` in this process (see run-access.ts): an app that embeds statewright, or a test. */
import { explainRun } from '../explain/explain-run.js';
import type { Runtime } from '../runtime/runtime.js';
import { runJson } from '../serve/run-json.js';
import type { RunAccess } from './run-access.js';

export function runtimeAccess(runtime: Runtime): RunAccess {
  return {
    where: 'this process',
    run: async (runId) => runJson(await runtime.getSnapshot(runId)),
    explain: (runId) => explainRun(runtime, runId),
    send: async (runId, event, options) => runJson(await runtime.dispatch(runId, event, options)),
    whileAway: (call) => call(),
    watch(runId, since, listener, onError) {
      let stopped = false;
      const unsubscribe = runtime.subscribe((step) => {
        if (!stopped && step.runId === runId) listener(runJson(step.snapshot));
      });
      // What committed before the subscription: the run as it is now, if it moved past `since`.
      runtime.getSnapshot(runId).then((run) => !stopped && run.seq > since && listener(runJson(run)), onError);
      return () => {
        stopped = true;
        unsubscribe();
      };
    },
    close: async () => {},
  };
}
