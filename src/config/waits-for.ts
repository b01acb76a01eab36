/**
 * A lifecycle's `waitsFor`: the states in which its runs wait for a person, said once in the
 * definition rather than in an `explain` hook.
 */
import type { LifecycleExplanation, PendingDecision } from '../../machines/lifecycle.js';

/** What a run waits for in one state: a line of text, or that and the events that decide it. */
export type WaitingFor =
  | string
  | {
      readonly summary: string;
      readonly approve?: { readonly type: string; readonly [key: string]: unknown };
      readonly deny?: { readonly type: string; readonly [key: string]: unknown };
    };

/** By state, as tables name it (`review`, or `Active.Review` for a nested one). */
export type WaitsFor = Readonly<Record<string, WaitingFor>>;

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
