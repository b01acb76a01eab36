import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { SessionContext, SessionInput } from '../../../machines/session/index.js';
import type { LifecycleModel } from './model.js';

const T0 = Date.UTC(2026, 0, 1, 9);
const ev = (type: string, payload: Record<string, unknown>): EventObject => ({ type, ...payload }) as EventObject;

/** What is still sampled once an interrupt was asked for: what ends the session, and the result it keeps. */
const INTERRUPTED_SAMPLES = new Set([
  'agent.result',
  'agent.exited',
  'INTERRUPT',
  'SESSION_ORPHANED',
  'APPROVAL_TIMEOUT',
]);

const input: SessionInput = {
  query: 'Make the failing test pass',
  created_at: T0,
  log_path: '/var/lib/statewright/sessions/s1.jsonl',
  config: { model: 'sonnet', approval_timeout_ms: 600_000, auto_accept_edits: true },
};

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
  input,
  samples: (type: string, snapshot: AnyMachineSnapshot): EventObject[] => {
    const context = snapshot.context as SessionContext;
    const pending = context.approvals.filter((a) => a.status === 'pending').map((a) => a.approval_id);
    // Once an interrupt is asked for, only what ends the session is sampled: the rest would copy the
    // whole state space under it (the bare events left are refused, as every path shows).
    if (context.interrupt_requested && !INTERRUPTED_SAMPLES.has(type)) return [];
    switch (type) {
      case 'agent.spawned':
        return [ev(type, { pid: 4242, pidStart: 'Thu Jan  1 09:00:00 2026', logPath: input.log_path, at: T0 + 100 })];
      case 'agent.session':
        return [
          ev(type, { sessionId: 'claude-7f3a', at: T0 + 200 }),
          ev(type, { at: T0 + 200 }), // no session id: refused
        ];
      case 'agent.assistant':
        // Once tokens are counted, only the refused bare event: the state space stays finite.
        return context.tokens.output > 0
          ? []
          : [
              ev(type, {
                usage: { input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 50 },
                text: 'Running the tests',
                at: T0 + 300,
              }),
            ];
      case 'agent.result':
        return [
          ev(type, {
            costUsd: 0.0421,
            totalTokens: 1550,
            result: 'The test passes now.',
            isError: false,
            sessionId: 'claude-7f3a',
            at: T0 + 400,
          }),
        ];
      case 'agent.exited':
        return [
          ev(type, { code: 0, signal: null, reason: 'exited with code 0', at: T0 + 500 }),
          ev(type, { code: 1, signal: null, reason: 'exited with code 1', at: T0 + 500 }),
        ];
      case 'START_TIMEOUT':
        return [ev(type, { at: context.start_deadline })];
      case 'APPROVAL_REQUESTED':
        return context.approvals.length >= 2
          ? []
          : [
              ev(type, {
                approval_id: `approval-${context.approvals.length + 1}`,
                tool_name: 'Bash',
                tool_input: { command: 'npm test' },
                at: T0 + 600,
              }),
              // An edit: auto_accept_edits approves it at once.
              ev(type, {
                approval_id: `approval-${context.approvals.length + 1}`,
                tool_name: 'Edit',
                tool_input: { file_path: 'src/a.ts' },
                at: T0 + 600,
              }),
            ];
      case 'agent.permission_denied':
        // Once one is recorded, only the refused bare event: the state space stays finite.
        return [
          ...(context.permission_denials.length > 0
            ? []
            : [ev(type, { toolName: 'Write', toolUseId: 'toolu_9', message: 'not allowed', at: T0 + 650 })]),
          ev(type, { at: T0 + 650 }),
        ];
      case 'agent.retrying':
        // Once a retry is kept, only the refused bare event: the state space stays finite.
        return [
          ...(context.retrying
            ? []
            : [ev(type, { attempt: 3, maxRetries: 10, errorStatus: 529, error: 'overloaded', at: T0 + 350 })]),
          ev(type, { at: T0 + 350 }),
        ];
      case 'APPROVAL_RESOLVED':
        return [
          ...pending.map((approval_id) => ev(type, { approval_id, decision: 'approved', at: T0 + 700 })),
          ev(type, { approval_id: 'approval-unknown', decision: 'denied', at: T0 + 700 }), // refused
        ];
      case 'APPROVAL_TIMEOUT':
        return pending.map((approval_id) => ev(type, { approval_id, at: T0 + 600 + 600_000 }));
      case 'INTERRUPT':
        return [ev(type, { at: T0 + 800 })];
      case 'INTERRUPT_REQUESTED':
        // Only from a plain record (at most the one approval waiting_input needs): the state space stays small.
        return context.tokens.output > 0 ||
          context.result ||
          context.retrying ||
          context.permission_denials.length > 0 ||
          context.approvals.length > 1 ||
          context.interrupt_requested
          ? []
          : [ev(type, { reason: 'enough', at: T0 + 750 })];
      case 'SESSION_ORPHANED':
        return [ev(type, { at: T0 + 900 })];
      default:
        return [];
    }
  },
};
