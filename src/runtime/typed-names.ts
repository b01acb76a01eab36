/**
 * The names and events of a runtime's machines, as types: `Runtime<M>` takes these from the
 * lifecycles it hosts, so `start('articel')` or `dispatch(id, { type: 'APROVE' })` do not compile.
 * A compile-time help only: the runtime checks every name and event when it is called anyway. With
 * the loose `Lifecycles` (a registry read from a file, a name in a `string`) they are as loose as
 * `string` and `{ type: string }`.
 */
import type { EventFromLogic, InputFrom } from 'xstate';
import type { Lifecycle, Lifecycles } from '../../machines/lifecycle.js';

/** Any object with a string `type`: what the runtime takes from a machine whose events are not typed. */
export type AnyRunEvent = { type: string };

type IsAny<T> = 0 extends 1 & T ? true : false;

/** As a caller sends it: the runtime stamps `at` on an event without one. */
type Sendable<E> = E extends { at: number } ? Omit<E, 'at'> & { at?: number } : E;

/** The event types the lifecycle declares beside its machine (`Lifecycle.events`), where they are literal. */
type DeclaredEvents<L> = L extends { readonly events?: readonly (infer T extends string)[] }
  ? string extends T
    ? never
    : { type: T }
  : never;

/**
 * The events a lifecycle's machine takes, as a caller sends them (`at` optional), with those the
 * lifecycle declares beside it; `{ type: string }` for a machine whose events are not typed
 * (`createMachine` without `types`, or typed as `{ type: string }`).
 */
export type LifecycleEvent<L extends Lifecycle> =
  IsAny<EventFromLogic<L['machine']>> extends true
    ? AnyRunEvent
    : string extends EventFromLogic<L['machine']>['type']
      ? AnyRunEvent
      : Sendable<EventFromLogic<L['machine']>> | DeclaredEvents<L>;

/** The names a runtime hosting `M` starts runs of: `string` for the loose `Lifecycles`. */
export type MachineName<M extends Lifecycles> = keyof M & string;

/**
 * Any event of any of the machines: what `send` and `dispatch` take (a run id does not tell the
 * machine at compile time). `{ type: string }` when one of them is untyped, or there are none.
 */
export type EventOf<M extends Lifecycles> = [MachineName<M>] extends [never]
  ? AnyRunEvent
  : Loosened<{ [K in MachineName<M>]: LifecycleEvent<M[K]> }[MachineName<M>]>;

/** One event taking any type takes them all. */
type Loosened<E extends AnyRunEvent> = string extends E['type'] ? AnyRunEvent : E;

/** The input a lifecycle's machine starts with (`setup({ types: { input } })`); `unknown` where untyped. */
export type InputOf<L extends Lifecycle> =
  IsAny<InputFrom<L['machine']>> extends true ? unknown : InputFrom<L['machine']>;
