/**
 * What only the task lifecycle knows of why a task is where it is (`Lifecycle.explain`): the
 * lease (holder, expiry, last heartbeat), the question waiting for a person, and who is to act
 * next in each state, in ferrus's terms.
 */
import type { ExplainingRun, LifecycleExplanation } from '../lifecycle.js';
import type { TaskContext } from './context.js';
import { isLive } from './lease.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Who acts next in each state, and with which events. */
const NEXT: Readonly<Record<string, { role: string; does: string }>> = {
  Idle: { role: 'supervisor', does: 'create_task' },
  'Active.Working.Executing': { role: 'executor', does: 'check, consult or ask_human' },
  'Active.Working.Checking.Running': { role: 'checker', does: 'check_passed or check_failed (the check commands run)' },
  'Active.Working.Checking.Passed': { role: 'executor', does: 'submit (or check again)' },
  'Active.Working.Addressing': { role: 'executor', does: 'check once it has addressed the feedback' },
  'Active.Consultation.Asked': { role: 'supervisor', does: 'respond_consult' },
  'Active.Consultation.Answered': { role: 'executor', does: 'wait_for_consult to resume' },
  'Active.Reviewing': { role: 'supervisor', does: 'approve or reject' },
  AwaitingHuman: { role: 'human', does: 'answer' },
  Complete: { role: 'supervisor', does: 'create_task for the next task' },
  Failed: { role: 'supervisor or a human', does: 'reset' },
};

export function explainTask(run: ExplainingRun): LifecycleExplanation {
  const context = run.snapshot.context as TaskContext;
  const { lease } = context;
  const next = NEXT[run.state];
  const leaseLine = !lease
    ? ''
    : context.leaseExpired || !isLive(lease, run.now)
      ? `; the lease of ${lease.claimedBy} ran out at ${iso(lease.leaseUntil)}, so another agent of its role may claim the task`
      : `; ${lease.claimedBy} holds the lease until ${iso(lease.leaseUntil)} (lease_expired fires then unless it sends a heartbeat)`;
  const waitsForClaim =
    !lease &&
    (run.state.startsWith('Active.Working') || run.state === 'Active.Reviewing') &&
    run.state !== 'Active.Working.Checking.Running';
  const claim = waitsForClaim
    ? `; nobody holds the lease: the first ${next?.role ?? 'agent'} to claim takes the task`
    : '';
  return {
    ...(lease && {
      lease: { holder: lease.claimedBy, expiresAt: lease.leaseUntil, lastHeartbeat: lease.lastHeartbeat },
    }),
    ...(run.state === 'AwaitingHuman' &&
      context.humanQuestion !== undefined && {
        waitingFor: [{ kind: 'question' as const, id: 'human-question', summary: context.humanQuestion }],
      }),
    ...(next && { verdict: `waiting for the ${next.role} to send ${next.does}${leaseLine}${claim}` }),
  };
}
