/**
 * The task's guards, named in the machine's `setup()`: the role of the sender, the payload of the
 * event, the lease (an agent whose lease expired or was taken over is refused with a `LeaseError`),
 * and the budgets.
 */
import { budgetGuard } from '../../src/graph/budget-guard.js';
import { explainedGuard } from '../../src/graph/explained-guard.js';
import { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
import { metadataGuard } from '../../src/graph/metadata-guard.js';
import { roleGuard } from '../../src/graph/role-guard.js';
import { roleOf, type AgentId, type TaskRole } from './agent.js';
import { eventTime, leaseAt, type TaskContext } from './context.js';
import { taskPayloads, type TaskEvent } from './events.js';
import { claimLease, LeaseError, mayChange, renewLease } from './lease.js';

const byRole = (...roles: TaskRole[]) =>
  roleGuard(roles, { roleOf: (event) => roleOf(event?.agent), field: 'agent', format: 'role:vendor:index' });

const noTime = (state: string, type: string) =>
  new InvalidTransitionError(
    state,
    type,
    `'${type}' carries no time ('at'), so its lease cannot be checked: send it through the runtime, which stamps every event.`,
  );

/** `mayChange` as a guard: an agent of the holder's role must hold a live lease, or the lease must be dead. */
const leaseGuard = explainedGuard('lease', ({ context, event, state }) => {
  const agent = (event as { agent?: unknown }).agent;
  if (!context.lease || roleOf(agent) === undefined) return undefined; // no lease, or the role guard speaks
  const at = eventTime(event);
  if (at === undefined)
    return roleOf(context.lease.claimedBy) === roleOf(agent) ? noTime(state, event.type) : undefined;
  const verdict = mayChange(leaseAt(context, at), agent as AgentId, at);
  return verdict.ok ? undefined : new LeaseError(state, event.type, agent as string, verdict);
});

/**
 * A check's result speaks for the executor that asked for it: once that executor has lost the
 * task (its lease taken over, or run out), a result of its check (say, from its process that
 * was paused and woke up late) changes nothing. An interrupted check, declared by the recovery
 * of a dead process, is not a result and is not bound.
 */
const requesterLeaseGuard = explainedGuard('requesterLease', ({ context, event, state }) => {
  const requester = context.checkRequestedBy;
  if (!requester || event.interrupted === true) return undefined;
  const at = eventTime(event);
  if (at === undefined) return context.lease ? noTime(state, event.type) : undefined;
  const verdict = mayChange(leaseAt(context, at), requester, at);
  return verdict.ok
    ? undefined
    : new LeaseError(state, event.type, `${event.agent} (checking for ${requester})`, verdict);
});

/** A claim is granted when the task is free, expired, or already the claimer's (idempotent). */
const claimGuard = explainedGuard('claimable', ({ context, event, state }) => {
  const at = eventTime(event);
  if (at === undefined) return noTime(state, event.type);
  const verdict = claimLease(leaseAt(context, at), event.agent, at, context.leaseTtlMs);
  return verdict.ok ? undefined : new LeaseError(state, event.type, event.agent, verdict);
});

/** A heartbeat renews the sender's own live lease: not_claimed, claimed_by_other or expired otherwise. */
const heartbeatGuard = explainedGuard('renewable', ({ context, event, state }) => {
  const at = eventTime(event);
  if (at === undefined) return noTime(state, event.type);
  const verdict = renewLease(leaseAt(context, at), event.agent, at, context.leaseTtlMs);
  return verdict.ok ? undefined : new LeaseError(state, event.type, event.agent, verdict);
});

/** The timer's event is for the current lease, not yet marked expired, and its time has come. */
const leaseDueGuard = explainedGuard('leaseDue', ({ context, event, state }) => {
  const { lease } = context;
  const at = eventTime(event);
  if (
    lease &&
    !context.leaseExpired &&
    lease.claimedBy === event.holder &&
    lease.leaseUntil === event.leaseUntil &&
    at !== undefined &&
    at >= lease.leaseUntil
  ) {
    return undefined;
  }
  return new InvalidTransitionError(
    state,
    event.type,
    `'lease_expired' for ${event.holder} until ${event.leaseUntil} does not match a live lease of this task: it was renewed, released or already expired.`,
  );
});

export const taskGuards = {
  supervisor: byRole('supervisor'),
  executor: byRole('executor'),
  checker: byRole('checker'),
  human: byRole('human'),
  'supervisor|executor': byRole('supervisor', 'executor'),
  'supervisor|human': byRole('supervisor', 'human'),
  task: metadataGuard(taskPayloads.create_task, 'Executing'),
  checkFailure: metadataGuard(taskPayloads.check_failed, 'Addressing'),
  question: metadataGuard(taskPayloads.consult, 'Consultation'),
  response: metadataGuard(taskPayloads.respond_consult, 'Consultation'),
  humanQuestion: metadataGuard(taskPayloads.ask_human, 'AwaitingHuman'),
  answer: metadataGuard(taskPayloads.answer, 'the paused state'),
  summary: metadataGuard(taskPayloads.submit, 'Reviewing'),
  notes: metadataGuard(taskPayloads.reject, 'Addressing'),
  lease: leaseGuard,
  claimable: claimGuard,
  renewable: heartbeatGuard,
  leaseDue: leaseDueGuard,
  requesterLease: requesterLeaseGuard,
  interrupted: ({ event }: { event: TaskEvent }) => (event as { interrupted?: boolean }).interrupted === true,
  checkRetriesLeft: budgetGuard(
    ({ context }: { context: TaskContext }) => context.checkRetries + 1 < context.limits.maxCheckRetries,
    'checkRetries',
  ),
  reviewCyclesLeft: budgetGuard(
    ({ context }: { context: TaskContext }) => context.reviewCycles + 1 < context.limits.maxReviewCycles,
    'reviewCycles',
  ),
};
