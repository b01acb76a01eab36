import type { LifecycleModel } from './model.js';

const E = 'Active.Working.Executing';
const RUNNING = 'Active.Working.Checking.Running';
const PASSED = 'Active.Working.Checking.Passed';
const A = 'Active.Working.Addressing';
const ASKED = 'Active.Consultation.Asked';
const ANSWERED = 'Active.Consultation.Answered';
const R = 'Active.Reviewing';
const H = 'AwaitingHuman';

/** The leaves of Active: where ask_human may come from and where answer may lead back to. */
const ACTIVE = [E, RUNNING, PASSED, A, ASKED, ANSWERED, R];

import { taskTesting } from '../../../machines/task/test-events.js';

export { agents } from '../../../machines/task/test-events.js';

/**
 * ../shared/seeds/ferrus-state-machine.txt, "States and transitions" and the state catalog, with the
 * seed's states as the leaves of the machine (Checking is where the checks run and, once they pass,
 * the seed's "Checking (pass)"; Consultation is asked, then answered).
 */
export const taskModel: LifecycleModel = {
  seedTable: [
    // Idle └─► Executing ← create_task (Supervisor)
    ['Idle', 'create_task', E],
    // └─► Checking ← check (Executor, pass): the check runs, and a pass rests in Checking
    [E, 'check', RUNNING],
    [RUNNING, 'check_passed', PASSED],
    // ├─► Consultation ← consult (Executor) └─► (restore previous state) ← wait_for_consult
    [PASSED, 'consult', ASKED],
    [ANSWERED, 'wait_for_consult', PASSED],
    // ├─► [FAIL, retries < max] Addressing → check again
    [RUNNING, 'check_failed', A],
    [A, 'check', RUNNING],
    // ├─► [FAIL, retries ≥ max] Failed
    [RUNNING, 'check_failed', 'Failed'],
    // └─► Reviewing ← submit (Executor)
    [PASSED, 'submit', R],
    // ├─► [REJECT] Addressing → check loop (retries reset)   └─► [cycles ≥ max] Failed
    [R, 'reject', A],
    [R, 'reject', 'Failed'],
    // └─► Complete ← approve (Supervisor)
    [R, 'approve', 'Complete'],
    // Catalog: "Complete ... Next /task starts cleanly."
    ['Complete', 'create_task', E],
    // Catalog: "Failed ... /reset required to clear."
    ['Failed', 'reset', 'Idle'],
  ],
  additions: [
    ...[E, RUNNING, A].map(
      (s) =>
        [
          s,
          'consult',
          ASKED,
          'ferrus consults from Executing and Addressing; a consult while checks run stops them, and they run again on return',
        ] as const,
    ),
    [
      ASKED,
      'respond_consult',
      ANSWERED,
      "ferrus's respond_consult: the supervisor's response is recorded before the executor's wait_for_consult resumes",
    ],
    ...[E, RUNNING, A].map(
      (s) => [ANSWERED, 'wait_for_consult', s, 'the history state restores exactly the state consult paused'] as const,
    ),
    ...ACTIVE.map(
      (s) =>
        [
          s,
          'ask_human',
          H,
          'ferrus: ask_human from any working, consulting or reviewing state (the seed names the state only)',
        ] as const,
    ),
    ...ACTIVE.map((s) => [H, 'answer', s, 'ferrus: answer restores the paused state (the history state)'] as const),
    [PASSED, 'check', RUNNING, 'ferrus lets the executor check again at any time before submitting'],
    ...[E, RUNNING, PASSED, A, ASKED, ANSWERED].map(
      (s) => [s, 'claim', s, "ferrus's wait_for_task: the executor claims the task it works on (lease)"] as const,
    ),
    [R, 'claim', R, "ferrus's wait_for_review: the supervisor claims the task it reviews (lease)"],
    ...ACTIVE.map(
      (s) => [s, 'heartbeat', s, "ferrus's heartbeat renews the holder's lease in every leasable state"] as const,
    ),
    ...[...ACTIVE, H].map(
      (s) =>
        [s, 'lease_expired', s, 'the durable lease timer marks the lease dead; the task stays where it is'] as const,
    ),
  ],
  samples: taskTesting.testEvents,
  input: taskTesting.testInputs[0],
};
