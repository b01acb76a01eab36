import type { Runtime } from '../../runtime/index.js';

/**
 * The demo names its runs `<slot>-<n>` (`build-1`, `session-2`) so that its lines, the CLI and the
 * view agree. Each slot holds at most one unfinished run: the latest is continued while it is
 * active, and only once it has finished does the next `npm start` begin `<slot>-<n+1>`. So the
 * demo settles: running it again never adds unfinished runs.
 */
export interface Slot {
  /** The run to continue, if the latest of the slot is still active. */
  readonly active?: string;
  /** The id for a new run of the slot. */
  readonly next: string;
}

export async function slotOf(rt: Runtime, machine: string, slot: string): Promise<Slot> {
  const pattern = new RegExp(`^${slot}-(\\d+)$`);
  let latest: { n: number; runId: string; status: string } | undefined;
  for (const run of await rt.list({ machine })) {
    const n = Number(pattern.exec(run.runId)?.[1] ?? NaN);
    if (Number.isInteger(n) && (!latest || n > latest.n)) latest = { n, runId: run.runId, status: run.status };
  }
  return { ...(latest?.status === 'active' && { active: latest.runId }), next: `${slot}-${(latest?.n ?? 0) + 1}` };
}
