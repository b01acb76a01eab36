/**
 * The registry of every lifecycle. The runtime, the tests, the diagrams and the CLI iterate it,
 * so a new lifecycle needs one line here and nothing else.
 */
import type { AnyStateMachine } from 'xstate';
import { executionMachine } from './execution.js';

export interface Lifecycle<M extends AnyStateMachine = AnyStateMachine> {
  readonly machine: M;
  /**
   * Bumped whenever a change makes stored snapshots of the previous definition unsafe to restore
   * (a state renamed or removed, context reshaped). Stored runs carry it.
   */
  readonly version: number;
  readonly summary: string;
}

export const lifecycles = {
  execution: {
    machine: executionMachine,
    version: 1,
    summary: 'kici run, job and step execution: 11 states, 16 events, 25 transitions',
  },
} satisfies Record<string, Lifecycle>;

export type LifecycleName = keyof typeof lifecycles;
export type Lifecycles = Readonly<Record<string, Lifecycle>>;

export * from './execution.js';
