import type { AnyMachineSnapshot, AnyStateNode } from 'xstate';
import { eventWords } from '../graph/event-words.js';
import { delayMs, storedArmedDelays } from '../runtime/timers/after-delays.js';
import type { ArmedDeadline } from './explanation.js';

/**
 * The durable timers a persisted snapshot has armed: every live child whose input has the shape
 * of the runtime's `deadline` actor (`{ deadline, event }`, src/runtime/timers/deadline-timer.ts) or at
 * least an absolute `deadline`, earliest first. Read from the snapshot, so a run that no process
 * hosts still shows the instant its timer will fire once a host restores it.
 */
export function armedDeadlines(persisted: unknown): ArmedDeadline[] {
  const children =
    (
      persisted as {
        children?: Record<string, { src?: unknown; snapshot?: { status?: string; input?: unknown } }>;
      } | null
    )?.children ?? {};
  const armed: ArmedDeadline[] = [];
  for (const [id, child] of Object.entries(children)) {
    // An invoke without an id gets XState's "<index>.<state id>": its actor's name says more.
    const name = /^\d+\./.test(id) && typeof child?.src === 'string' ? child.src : id;
    const input = child?.snapshot?.input as { deadline?: unknown; event?: { type?: unknown } } | undefined;
    if (child?.snapshot?.status !== 'active' || typeof input?.deadline !== 'number') continue;
    const event = typeof input.event?.type === 'string' ? input.event.type : undefined;
    armed.push({ name, at: input.deadline, ...(event !== undefined && { event }) });
  }
  return armed.sort((a, b) => a.at - b.at);
}

/** The ids of the live children that are not timers: the actors (agents, check runners) whose reports move the run. */
export function workingActors(persisted: unknown): string[] {
  const children =
    (persisted as { children?: Record<string, { snapshot?: { status?: string; input?: unknown } }> } | null)
      ?.children ?? {};
  return Object.entries(children)
    .filter(
      ([, child]) =>
        child?.snapshot?.status === 'active' &&
        typeof (child.snapshot.input as { deadline?: unknown } | undefined)?.deadline !== 'number',
    )
    .map(([name]) => name);
}

/**
 * The `after` delays of the states a run rests in, as armed deadlines: named as a person reads them
 * ("after 30 days"), due at the instant the committed snapshot keeps (`armedDelays`), or, for a run
 * stored before those were kept, at what its restore would arm: the delay counted from its last
 * committed step (`committedAt`); with the states each moves to. Earliest first.
 */
export function afterDeadlines(snapshot: AnyMachineSnapshot, persisted: unknown, committedAt: number): ArmedDeadline[] {
  if (snapshot.status !== 'active') return [];
  const armed = storedArmedDelays(persisted);
  const byEvent = new Map<string, { at: number; targets: Set<string> }>();
  for (const node of snapshot._nodes) {
    for (const transition of node.after as ReadonlyArray<{
      eventType: string;
      delay: unknown;
      target?: readonly AnyStateNode[];
    }>) {
      let deadline = byEvent.get(transition.eventType);
      if (!deadline) {
        const stored = armed?.[transition.eventType];
        const ms = stored === undefined ? delayMs(transition.delay, snapshot, undefined) : undefined;
        const at = stored ?? (ms === undefined ? undefined : committedAt + ms);
        if (at === undefined) continue;
        deadline = { at, targets: new Set() };
        byEvent.set(transition.eventType, deadline);
      }
      for (const target of transition.target ?? []) deadline.targets.add(target.path.join('.'));
    }
  }
  return [...byEvent]
    .map(([eventType, { at, targets }]) => ({
      name: eventWords(snapshot.machine, eventType),
      at,
      ...(targets.size > 0 && { target: [...targets].join(' or ') }),
    }))
    .sort((a, b) => a.at - b.at);
}
