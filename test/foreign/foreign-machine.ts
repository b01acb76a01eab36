/**
 * What the corpus says of each foreign machine: where it comes from, the shapes of XState it has,
 * and the paths that drive it. A path is a list of steps; a step is an event sent or the clock moved,
 * then, where the machine moves on by itself (a promise resolves, a child answers), the state it
 * settles in. Both hosts (plain XState and statewright) are compared only once settled.
 */
import { type AnyEventObject, type AnyStateMachine, matchesState, type StateValue } from 'xstate';

/** The XState features a corpus machine exercises: together the corpus covers every one. */
export type Shape =
  | 'parallel regions'
  | 'deep history'
  | 'shallow history'
  | 'always'
  | 'guard with params'
  | 'after (named delay)'
  | 'after (numeric delay)'
  | 'root after'
  | 'root on'
  | 'compound onDone'
  | 'invoked promise'
  | 'invoked callback'
  | 'invoked observable'
  | 'invoked machine'
  | 'spawned by name'
  | 'spawned from inline logic'
  | 'sendTo'
  | 'sendParent'
  | 'forwardTo'
  | 'onSnapshot'
  | "'*' wildcard"
  | 'input'
  | 'output';

/** What both hosts are compared on (src/testing/seen.ts, what `statewright/testing` compares). */
export type { Seen } from '../../src/testing/seen.js';

/** A persisted snapshot as a store keeps it: what `Settled` looks at. */
export interface Persisted {
  readonly value: StateValue;
  readonly status: string;
  readonly children?: Readonly<Record<string, { readonly snapshot?: { readonly status?: string } }>>;
}

/** The moment a step has settled: the machine has moved on by itself as far as it will. */
export type Settled = (snapshot: Persisted) => boolean;

export type Step =
  /** An event; `refused`: XState ignores it (no transition takes it) and statewright refuses it, as its rules say. */
  | { readonly send: AnyEventObject; readonly until?: Settled; readonly refused?: boolean }
  /** The clock moved by `advance` ms: due `after` delays fire. */
  | { readonly advance: number; readonly until?: Settled };

export interface ForeignPath {
  readonly name: string;
  readonly input?: unknown;
  /** Where the run settles once started, when its start moves it on by itself. */
  readonly started?: Settled;
  readonly steps: readonly Step[];
}

export interface ForeignMachine {
  /** The lifecycle name it is registered under, as a user's statewright.config.ts would. */
  readonly name: string;
  readonly machine: AnyStateMachine;
  /** Repository, path and commit it was taken from. */
  readonly origin: string;
  readonly licence: string;
  readonly shapes: readonly Shape[];
  readonly paths: readonly ForeignPath[];
  /**
   * Set for a machine statewright cannot host as XState runs it (a child spawned from inline logic
   * cannot be revived from a stored snapshot): the reason, as the refusal is to say it.
   */
  readonly cannotRestore?: string;
}

/** Settled once the state value matches `value` (a parent state matches any of its children). */
export const reached =
  (value: StateValue): Settled =>
  (snapshot) =>
    matchesState(value, snapshot.value);

/** Settled once the machine is done (a final state at the root). */
export const finished: Settled = (snapshot) => snapshot.status === 'done';

/** Settled once the run's child `id` is done (XState keeps a done child among the children). */
export const childDone =
  (id: string): Settled =>
  (snapshot) =>
    snapshot.children?.[id]?.snapshot?.status === 'done';

/** The step's event, or a description of the clock move, for test names and messages. */
export function describeStep(step: Step): string {
  return 'send' in step ? step.send.type : `${step.advance} ms pass`;
}
