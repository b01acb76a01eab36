/**
 * How every lifecycle's service is wired, the same for all of them: its actors go into
 * `createRuntime({ actors })` beside the other lifecycles', and its API is attached to that runtime,
 * which it does not own. Closing the API detaches it and stops what it started; the runtime and the
 * store stay open for their owner to close.
 *
 *   const sessions = sessionLifecycle({ logDir });
 *   const runtime = await createRuntime({ store, machines: lifecycles, actors: { ...sessions.actors } });
 *   const daemon = await sessions.attach(runtime);
 *   ...
 *   await daemon.close(); await runtime.close(); await store.close();
 */
import type { MachineActors } from '../actor-contract/run-handle.js';
import type { Runtime } from './runtime.js';

/**
 * What a lifecycle's service fills in a run's input at its start, where the caller left it out (a
 * session's `created_at` and `log_path`): the same for every host of the run (`statewright serve`'s
 * lifecycle host, a Restate worker's run object), given the run's id and the host's now.
 */
export type StartInput = (input: unknown, run: { readonly runId: string; readonly now: number }) => unknown;

/** What an attached API has in common: one way to close it. */
export interface AttachedService {
  /** Detaches from the runtime and stops what this API started; never closes the runtime or the store. */
  close(): Promise<void>;
}

export interface LifecycleWiring<Api extends AttachedService> {
  /** The real actors of the lifecycle's machines, by machine: spread into `createRuntime({ actors })`. */
  readonly actors: MachineActors;
  /** What the service fills in the input of a run of its machine at its start, if anything. */
  readonly startInput?: StartInput;
  /**
   * The lifecycle's API on `runtime`: does the service's start-up work (what the runtime's recovery
   * left for it, such as stopping an orphaned agent), then follows the runtime's commits.
   */
  attach(runtime: Runtime): Promise<Api>;
}
