/** Shared by the session machine tests: inputs, events with payloads, and actor stand-ins that record. */
import { createActor, fromCallback, type EventObject } from 'xstate';
import { sessionMachine, type SessionInput } from '../../machines/session/index.js';

export const T0 = Date.UTC(2026, 0, 1, 9);

export const input = (overrides: Partial<SessionInput> = {}): SessionInput => ({
  query: 'Make the failing test pass',
  created_at: T0,
  log_path: '/var/lib/statewright/sessions/s1.jsonl',
  ...overrides,
});

/** A callback actor stand-in that records what it was started with, what it received and when it stopped. */
export function recorder() {
  const record = {
    starts: [] as unknown[],
    received: [] as EventObject[],
    /** Everything that happened to the actor, in order: `start`, `stop`, or a received event type. */
    log: [] as string[],
    running: 0,
  };
  const logic = fromCallback<EventObject, any>(({ input, receive }) => {
    record.starts.push(input);
    record.log.push('start');
    record.running++;
    receive((event) => {
      record.received.push(event);
      record.log.push(event.type);
    });
    return () => {
      record.log.push('stop');
      record.running--;
    };
  });
  return { record, logic };
}

/** A session actor with recording stand-ins for its agent and timers. */
export function startSession(sessionInput: SessionInput = input()) {
  const agent = recorder();
  const deadline = recorder();
  const actor = createActor(sessionMachine.provide({ actors: { agent: agent.logic, deadline: deadline.logic } }), {
    input: sessionInput,
  });
  actor.start();
  return { actor, agent: agent.record, deadline: deadline.record };
}

export const ev = {
  spawned: (at = T0 + 10) =>
    ({
      type: 'agent.spawned',
      pid: 4242,
      pidStart: 'Thu Jan  1 09:00:00 2026',
      logPath: '/var/lib/statewright/sessions/s1.jsonl',
      at,
    }) as const,
  session: (at = T0 + 1_000, sessionId = 'claude-7f3a') => ({ type: 'agent.session', sessionId, at }) as const,
  assistant: (at: number, input_tokens = 1_000, output_tokens = 200) =>
    ({
      type: 'agent.assistant',
      usage: { input_tokens, output_tokens, cache_read_input_tokens: 30, cache_creation_input_tokens: 20 },
      text: 'Running the tests',
      at,
    }) as const,
  result: (at: number, fields: { costUsd?: number; totalTokens?: number; result?: string; isError?: boolean } = {}) =>
    ({
      type: 'agent.result',
      costUsd: 0.0421,
      totalTokens: 1_550,
      result: 'The failing test passes now; the fix was an off-by-one.',
      isError: false,
      sessionId: 'claude-7f3a',
      at,
      ...fields,
    }) as const,
  exited: (
    at: number,
    code: number | null,
    reason = code === null ? 'killed by SIGKILL' : `exited with code ${code}`,
  ) => ({ type: 'agent.exited', code, signal: code === null ? 'SIGKILL' : null, reason, at }) as const,
  approval: (at: number, approval_id = 'approval-1', tool_name = 'Bash') =>
    ({
      type: 'APPROVAL_REQUESTED',
      approval_id,
      tool_name,
      tool_input: { command: 'npm test' },
      tool_use_id: `toolu_${approval_id}`,
      at,
    }) as const,
  resolve: (
    at: number,
    approval_id = 'approval-1',
    decision: 'approved' | 'denied' | 'responded' = 'approved',
    comment?: string,
  ) => ({ type: 'APPROVAL_RESOLVED', approval_id, decision, ...(comment !== undefined && { comment }), at }) as const,
  approvalTimeout: (at: number, approval_id = 'approval-1') => ({ type: 'APPROVAL_TIMEOUT', approval_id, at }) as const,
  interrupt: (at: number, reason?: string) =>
    ({ type: 'INTERRUPT', ...(reason !== undefined && { reason }), at }) as const,
  orphaned: (at: number) => ({ type: 'SESSION_ORPHANED', at }) as const,
  startTimeout: (at: number) => ({ type: 'START_TIMEOUT', at }) as const,
};
