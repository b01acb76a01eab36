import { describe, expect, it } from 'vitest';
import { transition as xstateTransition } from 'xstate';
import {
  execution,
  executionMachine,
  InvalidTransitionError,
  type ExecutionEvent,
  type ExecutionState,
} from '../../machines/execution/index.js';
import { eventTypes, leafStates, stateName } from '../../src/graph/index.js';

const STATES = leafStates(executionMachine).map(stateName) as ExecutionState[];
const EVENTS = eventTypes(executionMachine) as ExecutionEvent[];

/** XState's own answer: the next state, or undefined when the event is not handled. */
function xstateNext(state: ExecutionState, event: ExecutionEvent): string | undefined {
  const snapshot = executionMachine.resolveState({ value: state, context: {} });
  if (!snapshot.can({ type: event })) return undefined;
  const [next] = xstateTransition(executionMachine, snapshot, { type: event });
  return next.value as string;
}

describe('the execution lifecycle API', () => {
  it('has the 11 states and 16 events of the seed', () => {
    expect(STATES).toEqual([
      'pending',
      'queued',
      'running',
      'recovering',
      'cancelling',
      'held',
      'waiting',
      'success',
      'failed',
      'cancelled',
      'skipped',
    ]);
    expect(new Set(EVENTS)).toEqual(
      new Set([
        'ENQUEUE',
        'START',
        'SUCCEED',
        'FAIL',
        'CANCEL',
        'CANCEL_GRACEFUL',
        'CANCEL_FORCE',
        'COMPLETE',
        'SKIP',
        'RECOVER',
        'HOLD',
        'APPROVE',
        'REJECT',
        'EXPIRE',
        'WAIT',
        'TIMER_DONE',
      ]),
    );
  });

  it("answers exactly as XState's transition() on all 176 (state, event) pairs", () => {
    let pairs = 0;
    let valid = 0;
    for (const state of STATES) {
      for (const event of EVENTS) {
        const expected = xstateNext(state, event);
        pairs++;
        expect(execution.canTransition(state, event), `${state} ${event}`).toBe(expected !== undefined);
        if (expected === undefined) {
          expect(() => execution.transition(state, event)).toThrow(InvalidTransitionError);
        } else {
          valid++;
          expect(execution.transition(state, event), `${state} ${event}`).toBe(expected);
        }
      }
    }
    expect(pairs).toBe(176);
    expect(valid).toBe(25);
  });

  it('throws InvalidTransitionError carrying the state and event with the seed message', () => {
    const error = (() => {
      try {
        execution.transition('pending', 'START');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'InvalidTransitionError',
      state: 'pending',
      event: 'START',
      accepts: ['ENQUEUE', 'CANCEL', 'SKIP', 'HOLD', 'WAIT'],
    });
    expect((error as Error).message).toBe(
      "Invalid transition: cannot apply event 'START' in state 'pending'; 'pending' accepts ENQUEUE, CANCEL, SKIP, HOLD, WAIT",
    );
  });

  it('rejects all 16 events from each of the 4 terminal states', () => {
    let rejected = 0;
    for (const state of execution.terminalStates) {
      for (const event of EVENTS) {
        expect(() => execution.transition(state, event)).toThrow(`cannot apply event '${event}' in state '${state}'`);
        rejected++;
      }
    }
    expect(rejected).toBe(64);
  });

  it('lists valid events in seed table order, [] for terminal states', () => {
    expect(execution.validEvents('pending')).toEqual(['ENQUEUE', 'CANCEL', 'SKIP', 'HOLD', 'WAIT']);
    expect(execution.validEvents('running')).toEqual(['SUCCEED', 'FAIL', 'CANCEL', 'CANCEL_GRACEFUL', 'RECOVER']);
    expect(execution.validEvents('cancelling')).toEqual(['CANCEL_FORCE', 'COMPLETE', 'FAIL']);
    expect(execution.validEvents('held')).toEqual(['APPROVE', 'REJECT', 'EXPIRE', 'CANCEL']);
    expect(execution.validEvents('waiting')).toEqual(['TIMER_DONE', 'CANCEL']);
    for (const state of execution.terminalStates) expect(execution.validEvents(state)).toEqual([]);
  });

  it('names the terminal states in the seed order and execution.isTerminal agrees', () => {
    expect(execution.terminalStates).toEqual(['success', 'failed', 'cancelled', 'skipped']);
    for (const state of STATES)
      expect(execution.isTerminal(state)).toBe(execution.terminalStates.includes(state as never));
  });

  it('canTransition never throws, even for values outside the types', () => {
    expect(execution.canTransition('nonsense' as ExecutionState, 'START')).toBe(false);
    expect(execution.canTransition('pending', 'toString' as ExecutionEvent)).toBe(false);
    expect(execution.canTransition('constructor' as ExecutionState, '__proto__' as ExecutionEvent)).toBe(false);
    expect(() => execution.transition('pending', 'hasOwnProperty' as ExecutionEvent)).toThrow(InvalidTransitionError);
  });

  it('keeps the cancelling rules of the seed', () => {
    expect(execution.canTransition('cancelling', 'CANCEL')).toBe(false);
    expect(execution.canTransition('pending', 'COMPLETE')).toBe(false);
    expect(execution.canTransition('running', 'COMPLETE')).toBe(false);
    expect(execution.canTransition('queued', 'CANCEL_GRACEFUL')).toBe(false);
    expect(execution.canTransition('success', 'CANCEL_FORCE')).toBe(false);
    const cancellable = STATES.filter((s) => execution.canTransition(s, 'CANCEL'));
    expect(cancellable.sort()).toEqual(['held', 'pending', 'queued', 'recovering', 'running', 'waiting']);
  });

  const lifecyclePaths: Array<[string, ExecutionEvent[], ExecutionState]> = [
    ['happy path', ['ENQUEUE', 'START', 'SUCCEED'], 'success'],
    ['failure', ['ENQUEUE', 'START', 'FAIL'], 'failed'],
    ['cancel', ['ENQUEUE', 'START', 'CANCEL'], 'cancelled'],
    ['skip', ['SKIP'], 'skipped'],
    ['queue failure', ['ENQUEUE', 'FAIL'], 'failed'],
    ['recovery resume', ['ENQUEUE', 'START', 'RECOVER', 'START', 'SUCCEED'], 'success'],
    ['recovery timeout', ['ENQUEUE', 'START', 'RECOVER', 'FAIL'], 'failed'],
    ['cancel during recovery', ['ENQUEUE', 'START', 'RECOVER', 'CANCEL'], 'cancelled'],
    ['hold approve', ['HOLD', 'APPROVE', 'START', 'SUCCEED'], 'success'],
    ['hold reject', ['HOLD', 'REJECT'], 'cancelled'],
    ['hold expire', ['HOLD', 'EXPIRE'], 'cancelled'],
    ['wait timer', ['WAIT', 'TIMER_DONE', 'START', 'SUCCEED'], 'success'],
    ['cancel during wait', ['WAIT', 'CANCEL'], 'cancelled'],
    ['graceful cancel', ['ENQUEUE', 'START', 'CANCEL_GRACEFUL', 'COMPLETE'], 'cancelled'],
    ['force cancel', ['ENQUEUE', 'START', 'CANCEL_GRACEFUL', 'CANCEL_FORCE'], 'cancelled'],
    ['hook failure', ['ENQUEUE', 'START', 'CANCEL_GRACEFUL', 'FAIL'], 'failed'],
  ];
  it.each(lifecyclePaths)('runs the %s lifecycle', (_, events, end) => {
    expect(events.reduce<ExecutionState>(execution.transition, 'pending')).toBe(end);
  });
});
