/**
 * The execution lifecycle of kici: one machine for runs, jobs and steps of a CI orchestrator and
 * its agents (seed: kici-execution-state-machine.txt). 11 states, 16 events, 25 transitions.
 *
 * The machine below is the only place the lifecycle is written down. The seed's pure API
 * (`transition`, `canTransition`, `validEvents`, `isTerminal`, `TERMINAL_STATES`) is compiled from
 * it once at load into plain lookups, because orchestrators call `transition` on hot paths.
 */
import { setup } from 'xstate';
import { compileTransitions } from '../src/graph/compiled-transitions.js';

export { InvalidTransitionError } from '../src/graph/invalid-transition-error.js';

// Row order within each state is the seed table's order; `validEvents` returns events in it.
const states = {
  pending: { on: { ENQUEUE: 'queued', CANCEL: 'cancelled', SKIP: 'skipped', HOLD: 'held', WAIT: 'waiting' } },
  queued: { on: { START: 'running', FAIL: 'failed', CANCEL: 'cancelled' } },
  running: {
    on: { SUCCEED: 'success', FAIL: 'failed', CANCEL: 'cancelled', CANCEL_GRACEFUL: 'cancelling', RECOVER: 'recovering' },
  },
  /** Agent disconnected; waiting for reconnection (START) or the recovery grace to run out (FAIL). */
  recovering: { on: { START: 'running', FAIL: 'failed', CANCEL: 'cancelled' } },
  /** Cancel hooks are running. */
  cancelling: { on: { CANCEL_FORCE: 'cancelled', COMPLETE: 'cancelled', FAIL: 'failed' } },
  /** Held for approval by a protection rule (required reviewers). */
  held: { on: { APPROVE: 'queued', REJECT: 'cancelled', EXPIRE: 'cancelled', CANCEL: 'cancelled' } },
  /** A protection rule's wait timer is running. */
  waiting: { on: { TIMER_DONE: 'queued', CANCEL: 'cancelled' } },
  success: { type: 'final' },
  failed: { type: 'final' },
  cancelled: { type: 'final' },
  skipped: { type: 'final' },
} as const;

type OwnEvents<T> = T extends { on: infer On } ? keyof On & string : never;

export type ExecutionState = keyof typeof states;
export type ExecutionEvent = { [S in ExecutionState]: OwnEvents<(typeof states)[S]> }[ExecutionState];
export type TerminalExecutionState = { [S in ExecutionState]: (typeof states)[S] extends { type: 'final' } ? S : never }[ExecutionState];

export const executionMachine = setup({
  types: {
    events: {} as { type: ExecutionEvent },
  },
}).createMachine({
  id: 'execution',
  initial: 'pending',
  states,
});

const compiled = compileTransitions<ExecutionState, ExecutionEvent>(executionMachine);

/** The terminal states, in the seed's order: success, failed, cancelled, skipped. */
export const TERMINAL_STATES = compiled.terminalStates as readonly TerminalExecutionState[];

/** Applies an event to a state. Throws `InvalidTransitionError` when the state does not accept it. */
export const transition: (state: ExecutionState, event: ExecutionEvent) => ExecutionState = compiled.transition;

/** Whether `event` is accepted in `state`. Never throws. */
export const canTransition: (state: ExecutionState, event: ExecutionEvent) => boolean = compiled.canTransition;

/** The events `state` accepts, in the seed table's order; `[]` for terminal states. */
export const validEvents: (state: ExecutionState) => readonly ExecutionEvent[] = compiled.validEvents;

export function isTerminal(state: ExecutionState): state is TerminalExecutionState {
  return compiled.isTerminal(state);
}
