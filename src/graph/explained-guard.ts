/**
 * A guard that carries its own explanation: `check` returns undefined to pass, or the error that
 * says why the event is refused. For conditions that depend on the context as well as the event
 * (a lease held by someone else), which role and metadata guards cannot express. The check stays
 * attached, so `explainRejection` can report the error instead of a bare "refused by its guard".
 */
export type GuardCheck = (args: { context: any; event: any; state: string }) => Error | undefined;

const checks = new WeakMap<Function, GuardCheck>();

export function explainedGuard(name: string, check: GuardCheck) {
  // The state name is only needed for the explanation; the guard itself passes on undefined.
  const guard = ({ context, event }: { context: any; event: any }) =>
    check({ context, event, state: '' }) === undefined;
  Object.defineProperty(guard, 'name', { value: name });
  checks.set(guard, check);
  return guard;
}

/** The error `guard` (an `explainedGuard`) gives for `event` in `state`, or undefined. */
export function explainedGuardFailure(
  guard: unknown,
  context: unknown,
  event: unknown,
  state: string,
): Error | undefined {
  const check = typeof guard === 'function' ? checks.get(guard) : undefined;
  return check?.({ context, event, state });
}
