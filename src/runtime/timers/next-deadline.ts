/**
 * A run's next deadline, for the store's timer index (`Commit.wakeAt`): the earliest instant of
 * the durable timers (`deadline` actors, deadline-timer.ts) its snapshot holds. Machines
 * invoke or spawn them with input `{ deadline, event }`; the snapshot of each child keeps that input.
 */
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';

/** The name every lifecycle's durable timer actor has (`setup({ actors: { deadline } })`). */
export const DEADLINE_ACTOR = 'deadline';

/** The earliest deadline of the live `deadline` children of a machine snapshot, or null when it has none. */
export function nextDeadline(snapshot: AnyMachineSnapshot): number | null {
  let next: number | null = null;
  const children = snapshot.children as Record<string, AnyActorRef | undefined>;
  for (const id in children) {
    const child = children[id];
    if (!child || child.src !== DEADLINE_ACTOR) continue;
    const at = deadlineOf(child.getSnapshot());
    if (at !== undefined && (next === null || at < next)) next = at;
  }
  return next;
}

/**
 * Whether every live child of the snapshot is a durable timer: such a run has nothing running
 * that a host must keep in memory (no agent process, no check), so it may sleep in the store.
 */
export function onlyTimers(snapshot: AnyMachineSnapshot): boolean {
  const children = snapshot.children as Record<string, AnyActorRef | undefined>;
  for (const id in children) {
    const child = children[id];
    if (child && child.src !== DEADLINE_ACTOR && child.getSnapshot().status === 'active') return false;
  }
  return true;
}

function deadlineOf(snapshot: unknown): number | undefined {
  const { status, input } = (snapshot ?? {}) as { status?: unknown; input?: { deadline?: unknown } };
  const deadline = input?.deadline;
  return status === 'active' && typeof deadline === 'number' && Number.isFinite(deadline) ? deadline : undefined;
}
