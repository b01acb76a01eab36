import { sessionTesting } from '../../../machines/session/test-events.js';
import type { LifecycleModel } from './model.js';

/**
 * ../shared/seeds/hld-session-state-machine.txt, "Transition Rules" 1-7 with one row per trigger,
 * and "Special Cases" 1 (orphaned sessions). The seed names triggers, not events; the event that
 * carries each trigger is the agent actor's (`agent.*`, fixed by the agent contract) or the
 * session's own.
 */
export const sessionModel: LifecycleModel = {
  seedTable: [
    // 1. starting -> running: Claude session ID received
    ['starting', 'agent.session', 'running'],
    // 2. starting -> failed: launch error OR launch timeout
    ['starting', 'agent.exited', 'failed'],
    ['starting', 'START_TIMEOUT', 'failed'],
    // 3. running -> waiting_input: approval correlated to the session's tool call
    ['running', 'APPROVAL_REQUESTED', 'waiting_input'],
    // 4. waiting_input -> running: approval resolved (approved/denied/responded)
    ['waiting_input', 'APPROVAL_RESOLVED', 'running'],
    // 5. running -> completed: Claude process exits with code 0
    ['running', 'agent.exited', 'completed'],
    // 6. running -> failed: non-zero exit OR interrupt requested
    ['running', 'agent.exited', 'failed'],
    ['running', 'INTERRUPT', 'failed'],
    // 7. waiting_input -> failed: session interrupt OR approval timeout
    ['waiting_input', 'INTERRUPT', 'failed'],
    ['waiting_input', 'APPROVAL_TIMEOUT', 'failed'],
    // Special case 1: orphaned sessions (starting, running, waiting_input) fail on daemon start
    ['starting', 'SESSION_ORPHANED', 'failed'],
    ['running', 'SESSION_ORPHANED', 'failed'],
    ['waiting_input', 'SESSION_ORPHANED', 'failed'],
  ],
  additions: [
    [
      'starting',
      'agent.spawned',
      'starting',
      'records pid, pid start time and log path: a restarted daemon needs them to find the process (no double agents)',
    ],
    [
      'starting',
      'INTERRUPT',
      'failed',
      'a launch that hangs can be cancelled without waiting for the 60 s timeout; hld interrupts any active session on shutdown',
    ],
    [
      'running',
      'agent.assistant',
      'running',
      'token usage and last activity from each assistant message (hld sums them from assistant messages)',
    ],
    [
      'running',
      'agent.result',
      'running',
      "Claude's result (cost, tokens, text, is_error) arrives before the exit that decides completed or failed",
    ],
    [
      'waiting_input',
      'agent.assistant',
      'waiting_input',
      'the agent stream and the approval service race: a message written before the approval request may commit after it',
    ],
    [
      'waiting_input',
      'agent.result',
      'waiting_input',
      'the same race for the result message; dropping it would lose the cost',
    ],
    [
      'waiting_input',
      'APPROVAL_REQUESTED',
      'waiting_input',
      'parallel tool calls: a second approval while one is pending (the seed query joins several pending approvals per session)',
    ],
    [
      'waiting_input',
      'APPROVAL_RESOLVED',
      'waiting_input',
      'one of several pending approvals resolved: the session still waits for the others',
    ],
    [
      'running',
      'APPROVAL_REQUESTED',
      'running',
      "hld's auto-approve: a tool call the session's config approves (auto_accept_edits, dangerously_skip_permissions) is recorded as approved and the status stays",
    ],
    [
      'waiting_input',
      'APPROVAL_TIMEOUT',
      'running',
      "seed 7 with an agent: Claude's permission prompt call is denied first (the expired approval), and the session fails on the agent's exit or at the grace's end",
    ],
    [
      'waiting_input',
      'APPROVAL_TIMEOUT',
      'waiting_input',
      'the same while other approvals are still pending: the session keeps waiting for them',
    ],
    [
      'running',
      'agent.permission_denied',
      'running',
      'a tool call Claude refused without asking (a deny rule, no permission prompt tool) is recorded on the session',
    ],
    [
      'waiting_input',
      'agent.permission_denied',
      'waiting_input',
      'the same while another call waits for a person (parallel tool calls)',
    ],
    [
      'running',
      'agent.retrying',
      'running',
      'Claude retrying a failed model call (system/api_retry): kept until its next message, so 529 retries do not look like work',
    ],
    [
      'running',
      'INTERRUPT',
      'running',
      "a person's interrupt keeps the cost: SIGINT and a durable grace; the agent's exit (after the result Claude writes on its way out) or the grace's end (the timer's INTERRUPT) fails it",
    ],
    ['waiting_input', 'INTERRUPT', 'waiting_input', 'the same while waiting for a person'],
    [
      'running',
      'INTERRUPT_REQUESTED',
      'running',
      "an interrupt that keeps the cost: SIGINT now, the session fails on the agent's exit, after the result Claude writes on its way out",
    ],
    [
      'waiting_input',
      'INTERRUPT_REQUESTED',
      'waiting_input',
      'the same while waiting for a person; the exit fails it as interrupted while waiting',
    ],
    [
      'waiting_input',
      'agent.retrying',
      'waiting_input',
      'the same while a tool call waits for a person (a parallel call retried)',
    ],
    [
      'waiting_input',
      'agent.exited',
      'failed',
      'the process died while blocked on an approval: the seed edge waiting_input -> failed, with the exit reason',
    ],
  ],
  input: sessionTesting.testInputs[0],
  samples: sessionTesting.testEvents,
};
