/**
 * `statewright/restate`: statewright's lifecycles hosted on Restate. `restateEndpoint` serves them
 * (one virtual object per lifecycle keyed by run id), `restateRuntime` is a client with the
 * `Runtime` shape, `AdminClient` registers an endpoint and queries runs. See docs/restate.md.
 */
export {
  restateEndpoint,
  type RestateEndpoint,
  type RestateEndpointOptions,
  type ListeningEndpoint,
} from './restate-endpoint.js';
export { restateRuntime, type RestateRuntime, type RestateRuntimeOptions } from './restate-runtime.js';
export { AdminClient } from './admin-client.js';
export { ActorHost, type ActorLog } from './actor-host.js';
export {
  RestateCallError,
  RestateOriginError,
  RestateSetupError,
  RestateTokenError,
  RestateUnauthorizedError,
  RestateUnreachableError,
} from './restate-errors.js';
export { RestateRefusedError } from './wire-error.js';
export { startWorker, type Worker, type WorkerOptions } from './worker.js';
export { workerActors, type WorkerActorsOptions } from './worker-actors.js';
export { workerStartInputs, type WorkerStartInputsOptions } from './worker-start-inputs.js';
export { restateViewRuntime, RestateReadOnlyError } from './view-runtime.js';
