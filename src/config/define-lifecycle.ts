/**
 * `defineLifecycle`: a lifecycle made from any XState machine, in the shape the built-in ones have
 * (machines/lifecycle.ts), with its name. The config's `machines` list holds these.
 */
import type { AnyStateMachine } from 'xstate';
import type { Lifecycle } from '../../machines/lifecycle.js';

/** A lifecycle under its name: what `defineLifecycle` returns and the config lists. */
export interface NamedLifecycle<N extends string = string, M extends AnyStateMachine = AnyStateMachine>
  extends Lifecycle<M> {
  readonly name: N;
}

/** What `defineLifecycle` takes: a `Lifecycle` with a name, its version and summary optional. */
export interface LifecycleSpec<N extends string, M extends AnyStateMachine>
  extends Omit<Lifecycle<M>, 'version' | 'summary'> {
  /** How runs, the CLI, the API and the view call it: letters, digits, `-` and `_`, starting with a letter. */
  readonly name: N;
  /** Bump it (with a migration from the previous one) when stored runs of the old definition would not restore. Default 1. */
  readonly version?: number;
  /** One line on what a run of it is, for `statewright machines` and the live view. */
  readonly summary?: string;
}

export function defineLifecycle<const N extends string, M extends AnyStateMachine>(
  spec: LifecycleSpec<N, M>,
): NamedLifecycle<N, M> {
  const { version, summary, ...rest } = spec;
  return {
    ...rest,
    // The keys of its event schemas are events it defines, as `check` reads them.
    ...(spec.eventSchemas && !spec.events && { events: Object.keys(spec.eventSchemas) }),
    version: version ?? 1,
    summary: summary ?? `${spec.name} (defined in the config)`,
  };
}
