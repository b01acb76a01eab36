/**
 * The session's events: the agent.* reports of the shared agent process actor and the session's
 * own, each a zod schema by type (the guards check payloads with them), and the error messages the
 * seed fixes.
 */
import { z } from 'zod';
import { agentRetryFields } from '../agent-retry.js';

/** Every event carries its time; the runtime stamps it. */
const at = z.number();

const usageSchema = z.looseObject({
  input_tokens: z.number().nonnegative(),
  output_tokens: z.number().nonnegative(),
  cache_read_input_tokens: z.number().nonnegative().optional(),
  cache_creation_input_tokens: z.number().nonnegative().optional(),
});

export const SESSION_APPROVAL_DECISIONS = ['approved', 'denied', 'responded'] as const;

const permissionDenialSchema = z.object({
  toolName: z.string().min(1),
  toolUseId: z.string().min(1),
  message: z.string().optional(),
  toolInput: z.record(z.string(), z.unknown()).optional(),
});

/** Each event's schema, by its type. */
export const sessionEventSchemas = {
  'agent.spawned': z.object({
    type: z.literal('agent.spawned'),
    pid: z.number().int().positive(),
    pidStart: z.string(),
    logPath: z.string(),
    at,
  }),
  'agent.session': z.object({ type: z.literal('agent.session'), sessionId: z.string().min(1), at }),
  // Codex reports its messages without usage, and its turn's cost only through the session's pricing.
  'agent.assistant': z.object({
    type: z.literal('agent.assistant'),
    messageId: z.string().optional(),
    usage: usageSchema.optional(),
    text: z.string(),
    /** Claude's own message (an API error), not the model's. */
    synthetic: z.literal(true).optional(),
    at,
  }),
  'agent.result': z.object({
    type: z.literal('agent.result'),
    costUsd: z.number().nonnegative().optional(),
    totalTokens: z.number().nonnegative(),
    usage: usageSchema.optional(),
    result: z.string().nullish(),
    isError: z.boolean(),
    sessionId: z.string().nullish(),
    /** Claude's `result.permission_denials`: the tool calls it refused in the turn. */
    permissionDenials: z.array(permissionDenialSchema).optional(),
    at,
  }),
  /** Claude is retrying a failed model call (`system/api_retry`). */
  'agent.retrying': z.object({ type: z.literal('agent.retrying'), ...agentRetryFields, at }),
  /** Claude refused a tool call without asking (`system/permission_denied`). */
  'agent.permission_denied': permissionDenialSchema.extend({ type: z.literal('agent.permission_denied'), at }),
  'agent.exited': z.object({
    type: z.literal('agent.exited'),
    code: z.number().int().nullish(),
    signal: z.string().nullish(),
    reason: z.string(),
    at,
  }),
  START_TIMEOUT: z.object({ type: z.literal('START_TIMEOUT'), at }),
  APPROVAL_REQUESTED: z.object({
    type: z.literal('APPROVAL_REQUESTED'),
    approval_id: z.string().min(1),
    tool_name: z.string().min(1),
    tool_input: z.record(z.string(), z.unknown()),
    tool_use_id: z.string().min(1).optional(),
    at,
  }),
  APPROVAL_RESOLVED: z.object({
    type: z.literal('APPROVAL_RESOLVED'),
    approval_id: z.string().min(1),
    decision: z.enum(SESSION_APPROVAL_DECISIONS),
    comment: z.string().optional(),
    at,
  }),
  APPROVAL_TIMEOUT: z.object({ type: z.literal('APPROVAL_TIMEOUT'), approval_id: z.string().min(1), at }),
  INTERRUPT: z.object({ type: z.literal('INTERRUPT'), reason: z.string().min(1).optional(), at }),
  /**
   * SIGINT to the agent, the session failing when the agent exits on it: Claude writes what the
   * interrupted call cost in a result just before it exits, and that is kept (INTERRUPT fails the
   * session at once, before it could arrive).
   */
  INTERRUPT_REQUESTED: z.object({ type: z.literal('INTERRUPT_REQUESTED'), reason: z.string().min(1).optional(), at }),
  SESSION_ORPHANED: z.object({ type: z.literal('SESSION_ORPHANED'), at }),
};

type Schemas = typeof sessionEventSchemas;
export type SessionEvent = { [T in keyof Schemas]: z.infer<Schemas[T]> }[keyof Schemas];
/** The event of one type. */
export type SessionEventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

/** The error messages the seed fixes. */
export const SESSION_ERRORS = {
  startTimeout: 'Timeout waiting for Claude session ID',
  interruptedWaiting: 'Interrupted while waiting for approval',
  orphaned: 'Session orphaned due to daemon restart',
} as const;
