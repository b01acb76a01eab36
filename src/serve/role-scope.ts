/**
 * What a task role's credential (`sw-role.…`, scoped-credential.ts) may send to its task run: the
 * events its agent sends (`agent` exactly the credential's), of its role. The machine's own role
 * and lease guards still judge each event after this; this keeps a credential from speaking for
 * another agent or another role at all (an executor's approving its own work, say).
 *
 * An executor's `check` runs the check commands of serve's `--task-dir` in serve, as serve's user
 * (docs/security.md says what that means); their results (`check_passed`, `check_failed`) come from
 * serve's check runner, never from a credential.
 */
import type { TaskRole } from '../../machines/index.js';

/** The events each role sends to a task run (machines/task/machine.ts's guards). */
const ROLE_EVENTS: Readonly<Record<TaskRole, ReadonlySet<string>>> = {
  supervisor: new Set([
    'create_task',
    'claim',
    'heartbeat',
    'ask_human',
    'respond_consult',
    'approve',
    'reject',
    'reset',
  ]),
  executor: new Set(['claim', 'heartbeat', 'check', 'ask_human', 'consult', 'wait_for_consult', 'submit']),
  human: new Set(['answer', 'reset']),
  // The check runner's results come from the process that runs the checks, never through the API.
  checker: new Set(),
};

/** The roles a credential may be given for. */
export const CREDENTIAL_ROLES: readonly TaskRole[] = ['supervisor', 'executor', 'human'];

/** Why the role credential of `holder` may not send `event` (with `idempotencyKey`), or undefined when it may. */
export function roleEventRefusal(
  holder: { readonly agent: string },
  event: { readonly type: string; readonly [field: string]: unknown },
  idempotencyKey: string | undefined,
): string | undefined {
  if (event.agent !== holder.agent)
    return `the event ${JSON.stringify(event.type)} in the name of ${JSON.stringify(event.agent ?? null)} (its \`agent\` must be ${holder.agent})`;
  const role = holder.agent.split(':')[0] as TaskRole;
  if (!ROLE_EVENTS[role]?.has(event.type))
    return `the event ${JSON.stringify(event.type)} (not one a ${role} sends through serve: ${[...(ROLE_EVENTS[role] ?? [])].join(', ') || 'none'})`;
  // A key is the run's: one taken first by another agent would turn its event into a replay.
  if (idempotencyKey !== undefined && !idempotencyKey.startsWith(`${holder.agent}:`))
    return `the idempotency key ${JSON.stringify(idempotencyKey)} (a role's keys start with ${holder.agent}:)`;
  return undefined;
}
