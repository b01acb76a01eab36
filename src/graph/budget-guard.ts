/**
 * A guard bounded by a budget counter ("fewer than maxCheckRetries failed checks"): marked so
 * that `statewright check` knows a cycle through its transition cannot go round for ever.
 */
const budgets = new WeakMap<Function, string>();

/** Marks `guard` as passing only while the budget `counter` (a context field) is not spent; returns it. */
export function budgetGuard<G extends Function>(guard: G, counter: string): G {
  budgets.set(guard, counter);
  return guard;
}

/** The counter a budget guard is bounded by, or undefined for any other guard. */
export function budgetOf(guard: unknown): string | undefined {
  return typeof guard === 'function' ? budgets.get(guard) : undefined;
}
