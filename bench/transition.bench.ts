/**
 * Transitions per second of the execution lifecycle's compiled `execution.transition`, beside a hand-written
 * lookup table (the kici original's shape) and XState's own pure `transition()`, in one run.
 */
import { transition as xstateTransition } from 'xstate';
import { execution, executionMachine, type ExecutionEvent, type ExecutionState } from '../machines/execution/index.js';
import { transitionTable } from '../src/graph/index.js';
import { measure, printTable } from './measure.js';

/** The kici original: one object literal, written by hand. */
const HAND_TABLE: Record<ExecutionState, Partial<Record<ExecutionEvent, ExecutionState>>> = {
  pending: { ENQUEUE: 'queued', CANCEL: 'cancelled', SKIP: 'skipped', HOLD: 'held', WAIT: 'waiting' },
  queued: { START: 'running', FAIL: 'failed', CANCEL: 'cancelled' },
  running: {
    SUCCEED: 'success',
    FAIL: 'failed',
    CANCEL: 'cancelled',
    CANCEL_GRACEFUL: 'cancelling',
    RECOVER: 'recovering',
  },
  recovering: { START: 'running', FAIL: 'failed', CANCEL: 'cancelled' },
  cancelling: { CANCEL_FORCE: 'cancelled', COMPLETE: 'cancelled', FAIL: 'failed' },
  held: { APPROVE: 'queued', REJECT: 'cancelled', EXPIRE: 'cancelled', CANCEL: 'cancelled' },
  waiting: { TIMER_DONE: 'queued', CANCEL: 'cancelled' },
  success: {},
  failed: {},
  cancelled: {},
  skipped: {},
};
function handTransition(state: ExecutionState, event: ExecutionEvent): ExecutionState {
  const next = HAND_TABLE[state][event];
  if (next === undefined) throw new Error(`Invalid transition: cannot apply event '${event}' in state '${state}'`);
  return next;
}

const pairs = transitionTable(executionMachine).map((r) => [r.source, r.event] as [ExecutionState, ExecutionEvent]);
const snapshots = pairs.map(
  ([state, event]) => [executionMachine.resolveState({ value: state, context: {} }), { type: event }] as const,
);

let sink = 0; // consumed so the loops are not optimised away
const LOOKUPS = 2_000_000;
const lookupRound = (fn: (s: ExecutionState, e: ExecutionEvent) => ExecutionState) => () => {
  for (let i = 0; i < LOOKUPS; i++) {
    const [state, event] = pairs[i % pairs.length]!;
    sink += fn(state, event).length;
  }
};

const hand = measure('hand-written table', LOOKUPS, lookupRound(handTransition));
const compiled = measure('compiled execution.transition()', LOOKUPS, lookupRound(execution.transition));
const XSTATE_CALLS = 20_000;
const xstate = measure('xstate transition()', XSTATE_CALLS, () => {
  for (let i = 0; i < XSTATE_CALLS; i++) {
    const [snapshot, event] = snapshots[i % snapshots.length]!;
    sink += String(xstateTransition(executionMachine, snapshot, event)[0].value).length;
  }
});

printTable(
  'execution transition() (one valid transition per call)',
  hand,
  [hand, compiled, xstate],
  'compiled within 3x of the hand-written table',
);
if (sink === 0) console.log('(no work done)');
