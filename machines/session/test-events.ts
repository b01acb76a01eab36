/** The session's events for generated tests (`statewright test`, `statewright/testing`, this project's every-path suites), and its input. */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { SessionInput } from './config.js';
import type { SessionContext } from './context.js';

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

export const sessionTesting = {
  testInputs: [input],
  /**
   * What decides which events a state takes (the guards, and the samples below): whether an agent
   * was spawned, how many approvals there are and are pending, whether a successful result came and
   * whether an interrupt (or an approval's timeout) was asked for. Tokens, retries, denials, costs
   * and times are left out: keyed on them the graph passes the 50,000-state bound.
   */
  testContextKey: (context: SessionContext) => ({
    agent: context.agent !== null,
    approvals: context.approvals.length,
    pending: context.approvals.filter((a) => a.status === 'pending').length,
    result: context.result && { error: context.result.is_error },
    interrupt: context.interrupt_requested && { approval: context.interrupt_requested.approval_id !== undefined },
  }),
  testEvents: (type: string, snapshot: AnyMachineSnapshot): EventObject[] => {
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
