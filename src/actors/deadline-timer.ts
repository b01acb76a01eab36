import { fromCallback, type EventObject } from 'xstate';
import type { ActorFactory } from '../runtime/run-handle.js';

export interface DeadlineInput {
  /** Absolute time (ms since the epoch, on the runtime's clock) at which `event` is due. */
  deadline: number;
  event: EventObject;
}

/**
 * A durable timer. XState's `after` is not restored from a snapshot (xstate #4860, #5331), so a
 * machine keeps the absolute deadline in its context and invokes this actor with it. Started
 * again on restore, it reads the clock and fires at the original deadline, or at once if that
 * has passed. The event goes through the run's queue, stamped with the deadline.
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
    const handle = run.clock.setTimeout(fire, Math.max(0, input.deadline - run.clock.now()));
    return () => run.clock.clearTimeout(handle);
  });
