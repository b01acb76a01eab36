/**
 * A lifecycle's `waitsFor`: the states in which its runs wait for a person, said once in the
 * definition rather than in an `explain` hook (which may still say more: its fields win).
 */
import type { LifecycleExplanation, PendingDecision, WaitsFor } from '../../machines/lifecycle.js';

/** The explanation of a run resting in `state`: nothing unless the state (or one it is inside) is listed. */
export function waitsForExplanation(waitsFor: WaitsFor, state: string): LifecycleExplanation {
  const listed = Object.keys(waitsFor).find((name) => state === name || state.startsWith(`${name}.`));
  if (listed === undefined) return {};
  const entry = waitsFor[listed]!;
  const { summary, approve, deny } = typeof entry === 'string' ? { summary: entry } : entry;
  const decision: PendingDecision = {
    kind: approve || deny ? 'approval' : 'question',
    id: listed,
    summary,
    ...(approve && { approve: { ...approve } }),
    ...(deny && { deny: { ...deny } }),
  };
  return { waitingFor: [decision], verdict: `waits for ${summary}` };
}
