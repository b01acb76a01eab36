/**
 * The task's events for generated tests (`statewright test`, `statewright/testing`, and this
 * project's every-path suites): each event from the role it is for and from a role it is not, and
 * the input runs start with.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';

export const agents = {
  supervisor: 'supervisor:claude:1',
  executor: 'executor:codex:1',
  human: 'human:cli:1',
  checker: 'checker:statewright:1',
} as const;

/** The role each event is for; every sample is sent once from it and once from another role. */
const senders: Record<
  string,
  { role: keyof typeof agents; payload: Record<string, unknown>; wrong: keyof typeof agents }
> = {
  create_task: { role: 'supervisor', payload: { task: 'Add a --verbose flag' }, wrong: 'executor' },
  check: { role: 'executor', payload: {}, wrong: 'supervisor' },
  check_passed: { role: 'checker', payload: {}, wrong: 'executor' },
  check_failed: { role: 'checker', payload: { failed: ['npm test'], feedback: '1 failing' }, wrong: 'executor' },
  consult: { role: 'executor', payload: { question: 'Which flag parser?' }, wrong: 'supervisor' },
  respond_consult: { role: 'supervisor', payload: { response: 'node:util parseArgs' }, wrong: 'executor' },
  wait_for_consult: { role: 'executor', payload: {}, wrong: 'supervisor' },
  ask_human: { role: 'executor', payload: { question: 'May I change the CLI?' }, wrong: 'human' },
  answer: { role: 'human', payload: { answer: 'yes' }, wrong: 'supervisor' },
  submit: { role: 'executor', payload: { summary: 'done' }, wrong: 'supervisor' },
  approve: { role: 'supervisor', payload: {}, wrong: 'executor' },
  reject: { role: 'supervisor', payload: { notes: 'missing tests' }, wrong: 'executor' },
  reset: { role: 'supervisor', payload: {}, wrong: 'executor' },
  claim: { role: 'executor', payload: {}, wrong: 'supervisor' },
  heartbeat: { role: 'executor', payload: {}, wrong: 'supervisor' },
};

/**
 * Every sample carries its time, as the runtime would stamp it, so that the pure graph and the
 * runtime replay (whose ManualClock starts at the same instant and never moves) agree on leases.
 */
export const T0 = Date.UTC(2026, 0, 1);
export const TTL = 1000;

export const taskTesting = {
  testEvents: (type: string, _snapshot: AnyMachineSnapshot): EventObject[] => {
    if (type === 'lease_expired') {
      // The timer of an executor's lease and of a supervisor's, each at its lease's end.
      return (['executor', 'supervisor'] as const).map((role) => ({
        type,
        holder: agents[role],
        leaseUntil: T0 + TTL,
        at: T0 + TTL,
      }));
    }
    const sender = senders[type];
    if (!sender) return [];
    const event = (role: keyof typeof agents) =>
      ({ type, agent: agents[role], ...sender.payload, at: T0 }) as EventObject;
    // Reviewing is the supervisor's seat: there the supervisor claims and the executor may not.
    if (type === 'claim') return [event('executor'), event('supervisor')];
    return [event(sender.role), event(sender.wrong)];
  },
  // Small budgets keep the graph of (state, context) finite and small, yet reach both outcomes: a second failure or rejection fails the task, a first one does not.
  testInputs: [{ limits: { maxCheckRetries: 2, maxReviewCycles: 2 }, lease: { ttlMs: TTL } }],
};
