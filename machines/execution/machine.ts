/**
 * The execution lifecycle of kici: one machine for runs, jobs and steps of a CI orchestrator and
 * its agents (seed: kici-execution-state-machine.txt). 11 states, 16 events, 25 transitions.
 *
 * The machine below is the only place the lifecycle is written down. The seed's pure API
 * (`execution.transition`, `canTransition`, `validEvents`, `isTerminal`, `terminalStates`) is
 * compiled from it once at load into plain lookups, because orchestrators call `transition` on hot paths.
 */
import { setup } from 'xstate';
import { compileTransitionsOnUse } from '../../src/graph/lifecycle-helpers.js';

export { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';

// Row order within each state is the seed table's order; `validEvents` returns events in it.
const states = {
  pending: { on: { ENQUEUE: 'queued', CANCEL: 'cancelled', SKIP: 'skipped', HOLD: 'held', WAIT: 'waiting' } },
  queued: { on: { START: 'running', FAIL: 'failed', CANCEL: 'cancelled' } },
  running: {
    on: {
      SUCCEED: 'success',
      FAIL: 'failed',
      CANCEL: 'cancelled',
      CANCEL_GRACEFUL: 'cancelling',
      RECOVER: 'recovering',
    },
  },
  /** Agent disconnected; waiting for reconnection (START) or the recovery grace to run out (FAIL). */
  recovering: {
    meta: {
      unbounded:
        "an agent may disconnect and reconnect any number of times; the orchestrator's recovery grace sends FAIL when it stays away",
    },
    on: { START: 'running', FAIL: 'failed', CANCEL: 'cancelled' },
  },
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
export type TerminalExecutionState = {
  [S in ExecutionState]: (typeof states)[S] extends { type: 'final' } ? S : never;
}[ExecutionState];

export const executionMachine = setup({
  types: {
    events: {} as { type: ExecutionEvent },
  },
}).createMachine({
  id: 'execution',
  initial: 'pending',
  // A pure table: the orchestrator and its agents send every event and own every timer.
  meta: {
    waitsFor:
      'the CI orchestrator and its agents, which send every event and run the timers (recovery grace, protection waits)',
  },
  states,
});

/**
 * The seed's pure API, compiled from the machine: `execution.transition(state, event)` (throws
 * `InvalidTransitionError`), `canTransition`, `validEvents` (in the seed table's order),
 * `isTerminal`, `terminalStates` (success, failed, cancelled, skipped), and the rest of the
 * helpers every lifecycle has.
 */
export const execution = compileTransitionsOnUse<ExecutionState, ExecutionEvent, TerminalExecutionState>(
  executionMachine,
);
