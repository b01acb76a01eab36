import { InvalidTransitionError } from './invalid-transition-error.js';

/**
 * Raised when an event comes from a role its transition does not admit ("executors cannot
 * approve"). An `InvalidTransitionError`, so callers that handle refusals handle this one too;
 * it also carries the role that sent the event and the roles that may.
 */
export class RoleError extends InvalidTransitionError {
  override readonly name = 'RoleError';
  constructor(
    state: string,
    event: string,
    /** The role the event came from; undefined when the event names none. */
    readonly role: string | undefined,
    readonly allowed: readonly string[],
  ) {
    super(
      state,
      event,
      role === undefined
        ? `Role missing: '${event}' names no role it comes from (in state '${state}'). Only ${list(allowed)} may ${event}: send it as one of them.`
        : `Role '${role}' may not ${event} (in state '${state}'): only ${list(allowed)} may ${event}.`,
    );
  }
}

const list = (roles: readonly string[]) => roles.map((r) => `'${r}'`).join(' or ');

interface RoleGuardSpec {
  allowed: readonly string[];
  roleOf: (event: any) => string | undefined;
}

const specs = new WeakMap<Function, RoleGuardSpec>();

/**
 * A transition guard that passes when the event comes from one of the `allowed` roles, read from
 * the event by `roleOf` (default: its `role` field). The roles stay attached, so the refusal can be
 * explained as a `RoleError` (`explainRejection`) instead of being silently ignored as XState would.
 * The guard is named after its roles ("supervisor", "supervisor|human") for tables and diagrams.
 */
export function roleGuard(allowed: readonly string[], roleOf: (event: any) => string | undefined = (event) => event?.role) {
  if (allowed.length === 0) throw new Error('roleGuard needs at least one allowed role');
  const guard = ({ event }: { event: any }) => {
    const role = roleOf(event);
    return role !== undefined && allowed.includes(role);
  };
  Object.defineProperty(guard, 'name', { value: allowed.join('|') });
  specs.set(guard, { allowed: [...allowed], roleOf });
  return guard;
}

/** The roles a guard made by `roleGuard` admits, or undefined for any other guard. */
export function roleGuardRoles(guard: unknown): readonly string[] | undefined {
  return typeof guard === 'function' ? specs.get(guard)?.allowed : undefined;
}

/** The error that says why `event` fails the role guard `guard` in `state`, or undefined if it passes. */
export function roleGuardFailure(guard: unknown, event: { type: string }, state: string): RoleError | undefined {
  const spec = typeof guard === 'function' ? specs.get(guard) : undefined;
  if (!spec) return undefined;
  const role = spec.roleOf(event);
  if (role !== undefined && spec.allowed.includes(role)) return undefined;
  return new RoleError(state, event.type, role, spec.allowed);
}
