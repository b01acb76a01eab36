/**
 * How a run that reached a final state ended: `done` (what it was for happened: `success`,
 * `approved`, and a `rejected` expense too, if its lifecycle says so), `failed`, `cancelled` or
 * `skipped`. XState calls every final state `done`; a lifecycle says which of its final states are
 * failures (`outcomes`), and a final state it does not name is read by its name.
 */
import type { AnyStateMachine } from 'xstate';
import { finalStateNames } from './transition-table.js';

export const OUTCOMES = ['done', 'failed', 'cancelled', 'skipped'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The outcome a final state's name suggests, when its lifecycle does not say. */
export function outcomeByName(state: string): Outcome {
  if (/cancel|abort|kill/i.test(state)) return 'cancelled';
  if (/fail|crash|error|reject|denied|timed?.?out|expired|orphan/i.test(state)) return 'failed';
  if (/skip/i.test(state)) return 'skipped';
  return 'done';
}

/** Every final state of the machine (top level, as `finalStateNames` names them) with its outcome: the declared one, else by name. */
export function finalOutcomes(
  machine: AnyStateMachine,
  declared: Readonly<Record<string, Outcome>> = {},
): Record<string, Outcome> {
  return Object.fromEntries(finalStateNames(machine).map((state) => [state, declared[state] ?? outcomeByName(state)]));
}
