/**
 * `after` delays across a restore. XState arms a state's `after` delays as it enters the state and
 * keeps them in memory only: a run restored from its snapshot (after a restart, a hand-over, a
 * hibernation) would wait in that state for ever. Here the delays of the states the restored run
 * rests in are armed again, for what is left of each counted from `enteredAt` (the run's last
 * committed step: at or after it entered them, so a delay never fires early). Their events are
 * taken into the run's queue like any of XState's own (xstate-events.ts).
 */
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import type { Clock } from '../../actor-contract/clock.js';

interface Scheduling {
  scheduler: {
    schedule(source: AnyActorRef, target: AnyActorRef, event: { type: string }, delay: number, id: string): void;
  };
  getSnapshot(): { _scheduledEvents: Record<string, unknown> };
}

/** Whether XState holds a delayed event of the run (an `after` delay armed, a delayed `raise`). */
export function hasArmedDelays(root: AnyActorRef): boolean {
  return Object.keys((root.system as unknown as Scheduling).getSnapshot()._scheduledEvents).length > 0;
}

interface DelayedTransition {
  readonly eventType: string;
  readonly delay: unknown;
}

export function rearmAfterDelays(root: AnyActorRef, enteredAt: number, clock: Clock): void {
  const snapshot = root.getSnapshot() as AnyMachineSnapshot;
  if (snapshot.status !== 'active') return;
  const { scheduler } = root.system as unknown as Scheduling;
  const armed = new Set<string>();
  for (const node of snapshot._nodes) {
    for (const { eventType, delay } of node.after as readonly DelayedTransition[]) {
      if (armed.has(eventType)) continue; // guarded alternatives share one delay event
      const ms = delayMs(delay, snapshot, root);
      if (ms === undefined) continue;
      armed.add(eventType);
      // The id XState gives the delay, so leaving the state cancels it as it cancels its own.
      scheduler.schedule(root, root, { type: eventType }, Math.max(0, ms - (clock.now() - enteredAt)), eventType);
    }
  }
}

/** A delay as the machine gives it: ms, or the name of one of its `delays` (a number or a function of the context). */
function delayMs(delay: unknown, snapshot: AnyMachineSnapshot, self: AnyActorRef): number | undefined {
  const named =
    typeof delay === 'string'
      ? (snapshot.machine.implementations.delays as Record<string, unknown> | undefined)?.[delay]
      : delay;
  const ms =
    typeof named === 'function'
      ? named({ context: snapshot.context, event: { type: 'xstate.init' }, self, system: self.system }, undefined)
      : named;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : undefined;
}
