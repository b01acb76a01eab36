/**
 * `after` delays across a restore, at XState's instant. XState arms a state's `after` delays as it
 * enters the state and keeps them in memory only (xstate #4860): a run restored from its snapshot
 * (after a restart, a hand-over, a hibernation) would wait in that state for ever. So each run's
 * XState actor arms its delays on a `DelayClock`, which keeps when each is due; every committed
 * snapshot carries those instants (`armedDelays`, beside XState's fields, which XState ignores on
 * restore); and a restored run's delays are armed again for their stored instant, so a delay armed
 * on day 0 of a 30-day wait fires on day 30 whatever steps and restarts came between, and one that
 * fell due while no host ran fires at once. A run stored before the instants were kept has none:
 * its delays are counted from its last committed step (at or after it entered their state, so
 * they never fire early, but late by the time between). Their events are taken into the run's
 * queue like any of XState's own (xstate-events.ts).
 */
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import { setTimeoutAt, type Clock } from '../../actor-contract/clock.js';

/** The key of a persisted snapshot that holds its armed `after` delays: each delay's id (its event type) -> when it is due (ms, the runtime's clock). */
export const ARMED_DELAYS = 'armedDelays';

export type ArmedDelays = Readonly<Record<string, number>>;

interface ScheduledEvent {
  readonly source: AnyActorRef;
  readonly target: AnyActorRef;
  readonly id: string;
  readonly event: { readonly type: string };
}

interface Scheduling {
  scheduler: {
    schedule(source: AnyActorRef, target: AnyActorRef, event: { type: string }, delay: number, id: string): void;
  };
  _snapshot: { _scheduledEvents: Record<string, ScheduledEvent> };
}

const scheduledOf = (root: AnyActorRef) => (root.system as unknown as Scheduling)._snapshot._scheduledEvents;

/** Whether XState holds a delayed event of the run (an `after` delay armed, a delayed `raise`). */
export function hasArmedDelays(root: AnyActorRef): boolean {
  for (const _id in scheduledOf(root)) return true;
  return false;
}

/**
 * The clock a run's XState actor arms its delayed events on: the runtime's clock, each delay armed
 * in steps Node's timers can hold (`setTimeoutAt`: XState's own `setTimeout` of a 30-day delay
 * would fire after 1 ms), and the instant each was armed for kept, which `armed` reads.
 */
export class DelayClock implements Clock {
  readonly #due = new WeakMap<ScheduledEvent, number>();
  #root: AnyActorRef | undefined;
  /** The stored instant of the delay being armed again (`rearmAfterDelays`), in place of now + its delay. */
  #restoring: number | undefined;

  constructor(private readonly clock: Clock) {}

  /** The run's actor, whose scheduled events this clock arms: call before it starts. */
  watch(root: AnyActorRef): void {
    this.#root = root;
  }

  now(): number {
    return this.clock.now();
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const due = this.#restoring ?? this.clock.now() + ms;
    // XState calls this right after it records the scheduled event: the one not yet known is it.
    if (this.#root) {
      const scheduled = scheduledOf(this.#root);
      for (const id in scheduled) if (!this.#due.has(scheduled[id]!)) this.#due.set(scheduled[id]!, due);
    }
    return setTimeoutAt(this.clock, due, callback);
  }

  clearTimeout(cancel: unknown): void {
    (cancel as () => void)();
  }

  /** The run's armed `after` delays and when each is due, or undefined when it has none. */
  armed(root: AnyActorRef): ArmedDelays | undefined {
    let armed: Record<string, number> | undefined;
    const scheduled = scheduledOf(root);
    for (const key in scheduled) {
      const { source, target, id, event } = scheduled[key]!;
      const due = this.#due.get(scheduled[key]!);
      if (source !== root || target !== root || due === undefined || !event.type.startsWith('xstate.after.')) continue;
      (armed ??= {})[id] = due;
    }
    return armed;
  }

  /** Arms a delay for the instant it was stored with. */
  armAt<T>(due: number, arm: () => T): T {
    this.#restoring = due;
    try {
      return arm();
    } finally {
      this.#restoring = undefined;
    }
  }
}

/** A persisted snapshot with the run's armed delays beside XState's fields (none: as it is). */
export function withArmedDelays(persisted: unknown, armed: ArmedDelays | undefined): unknown {
  return armed ? { ...(persisted as object), [ARMED_DELAYS]: armed } : persisted;
}

/** The armed delays a persisted snapshot carries, or undefined (none armed, or stored before they were kept). */
export function storedArmedDelays(persisted: unknown): ArmedDelays | undefined {
  const armed = (persisted as Record<string, unknown> | null)?.[ARMED_DELAYS];
  return armed && typeof armed === 'object' ? (armed as ArmedDelays) : undefined;
}

interface DelayedTransition {
  readonly eventType: string;
  readonly delay: unknown;
}

/**
 * Arms again the `after` delays of the states a restored run rests in: each for the instant its
 * committed snapshot stored (`armed`), or, for a run stored without it, for what is left of the
 * delay counted from `committedAt`, its last committed step.
 */
export function rearmAfterDelays(
  root: AnyActorRef,
  armed: ArmedDelays | undefined,
  committedAt: number,
  clock: DelayClock,
): void {
  const snapshot = root.getSnapshot() as AnyMachineSnapshot;
  if (snapshot.status !== 'active') return;
  const { scheduler } = root.system as unknown as Scheduling;
  const done = new Set<string>();
  for (const node of snapshot._nodes) {
    for (const { eventType, delay } of node.after as readonly DelayedTransition[]) {
      if (done.has(eventType)) continue; // guarded alternatives share one delay event
      const ms = delayMs(delay, snapshot, root);
      if (ms === undefined) continue;
      done.add(eventType);
      const due = armed?.[eventType];
      // The id XState gives the delay, so leaving the state cancels it as it cancels its own.
      const arm = () => scheduler.schedule(root, root, { type: eventType }, ms, eventType);
      if (typeof due === 'number' && Number.isFinite(due)) clock.armAt(due, arm);
      else clock.armAt(committedAt + ms, arm);
    }
  }
}

/** A delay as the machine gives it: ms, or the name of one of its `delays` (a number or a function of the context). */
export function delayMs(delay: unknown, snapshot: AnyMachineSnapshot, self?: AnyActorRef): number | undefined {
  const named =
    typeof delay === 'string'
      ? (snapshot.machine.implementations.delays as Record<string, unknown> | undefined)?.[delay]
      : delay;
  const ms =
    typeof named === 'function'
      ? named({ context: snapshot.context, event: { type: 'xstate.init' }, self, system: self?.system }, undefined)
      : named;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : undefined;
}
