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
    /** The role the event came from; undefined when the event names none, or names it badly. */
    readonly role: string | undefined,
    readonly allowed: readonly string[],
    /** Why no role could be read, when none could ("agent 'bob' is not role:vendor:index"). */
    unreadable?: string,
  ) {
    super(
      state,
      event,
      role === undefined
        ? `Role missing: ${unreadable ?? `'${event}' names no role`} (in state '${state}'). Only ${list(allowed)} may ${event}.`
        : `Role '${role}' may not ${event} (in state '${state}'): only ${list(allowed)} may ${event}.`,
    );
  }
}

const list = (roles: readonly string[]) => roles.map((r) => `'${r}'`).join(' or ');

/** Where an event says who sent it. */
export interface RoleSource {
  /** The role an event comes from; undefined when it names none or names it badly. */
  roleOf: (event: any) => string | undefined;
  /** The event field that names the sender and the form it takes, for messages ("agent", "role:vendor:index"). */
  field?: string;
  format?: string;
}

const specs = new WeakMap<Function, { allowed: readonly string[]; source: RoleSource }>();

/**
 * A transition guard that passes when the event comes from one of the `allowed` roles, read from
 * the event by `source.roleOf` (default: its `role` field). The roles stay attached, so a refusal
 * can be explained as a `RoleError` (`explainRejection`) instead of being silently ignored as
 * XState would. The guard is named after its roles ("supervisor", "supervisor|human") for tables
 * and diagrams.
 */
export function roleGuard(
  allowed: readonly string[],
  source: RoleSource = { roleOf: (event) => event?.role, field: 'role' },
) {
  if (allowed.length === 0) throw new Error('roleGuard needs at least one allowed role');
  const guard = ({ event }: { event: any }) => {
    const role = source.roleOf(event);
    return role !== undefined && allowed.includes(role);
  };
  Object.defineProperty(guard, 'name', { value: allowed.join('|') });
  specs.set(guard, { allowed: [...allowed], source });
  return guard;
}

/** The error that says why `event` fails the role guard `guard` in `state`, or undefined if it passes. */
export function roleGuardFailure(guard: unknown, event: { type: string }, state: string): RoleError | undefined {
  const spec = typeof guard === 'function' ? specs.get(guard) : undefined;
  if (!spec) return undefined;
  const role = spec.source.roleOf(event);
  if (role !== undefined && spec.allowed.includes(role)) return undefined;
  return new RoleError(
    state,
    event.type,
    role,
    spec.allowed,
    role === undefined ? unreadable(spec.source, event) : undefined,
  );
}

function unreadable({ field, format }: RoleSource, event: { type: string }): string | undefined {
  if (field === undefined) return undefined;
  const value = (event as Record<string, unknown>)[field];
  const form = format ? ` (${format})` : '';
  return value === undefined
    ? `'${event.type}' has no ${field}${form} naming who sends it`
    : `'${event.type}' has ${field} ${JSON.stringify(value)}, which is not ${format ?? 'a known role'}`;
}

/** The roles a role guard admits and the event field that names the sender, or undefined for any other guard. */
export function roleGuardRoles(
  guard: unknown,
): { readonly allowed: readonly string[]; readonly field?: string } | undefined {
  const spec = typeof guard === 'function' ? specs.get(guard) : undefined;
  return spec && { allowed: spec.allowed, ...(spec.source.field !== undefined && { field: spec.source.field }) };
}
