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
