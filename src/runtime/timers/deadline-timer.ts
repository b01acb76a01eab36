import { fromCallback, type EventObject } from 'xstate';
import { LAST_DATE_MS, setTimeoutAt } from '../../actor-contract/clock.js';
import type { ActorFactory } from '../../actor-contract/run-handle.js';

export interface DeadlineInput {
  /** Absolute time (ms since the epoch, on the runtime's clock) at which `event` is due. */
  deadline: number;
  event: EventObject;
}

/**
 * A durable timer. XState's `after` is not restored from a snapshot (xstate #4860, #5331), so a
 * machine keeps the absolute deadline in its context and invokes this actor with it. Started
 * again on restore, it reads the clock and fires at the original deadline, or at once if that
 * has passed. The event goes through the run's queue, stamped with the deadline. A deadline
 * weeks away is armed in steps (`setTimeoutAt`); one past the last date a `Date` holds (a run
 * stored before durations were bounded) is never reached, which the run's log is told.
 */
export const deadlineTimer: ActorFactory = (run) =>
  fromCallback<EventObject, DeadlineInput>(({ input }) => {
    const fire = () =>
      run.send(
        { ...input.event, at: input.deadline },
        {
          actor: 'timer',
          reason: `deadline ${new Date(input.deadline).toISOString()} reached`,
          idempotencyKey: `deadline:${input.event.type}:${input.deadline}`,
          ifAccepted: true,
        },
      );
    if (!(Math.abs(input.deadline) <= LAST_DATE_MS)) {
      run.log(
        'warn',
        `the '${input.event.type}' deadline (${input.deadline} ms since 1970) is past the dates a Date holds: it will never fire`,
      );
      return;
    }
    return setTimeoutAt(run.clock, input.deadline, fire);
  });
