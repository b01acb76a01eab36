/**
 * How the machine's actions change the session record: pure functions of the record and the event.
 */
import type { SessionApproval, SessionAutoApproval, SessionContext, SessionPermissionDenial } from './context.js';
import { SESSION_ERRORS, type SessionEventOf } from './events.js';
import { agentRetrying } from '../agent-retry.js';
import { DEFAULT_SESSION_INTERRUPT_GRACE_MS } from './config.js';

export const pendingSessionApprovalIds = (context: Pick<SessionContext, 'approvals'>): string[] =>
  context.approvals.filter((a) => a.status === 'pending').map((a) => a.approval_id);

/** hld's summary: whitespace collapsed, at most `max` characters, "..." when cut. */
export function summarizeSession(text: string, max = 50): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  return chars.length <= max ? clean : `${chars.slice(0, max - 3).join('')}...`;
}

const durationMs = (context: SessionContext, now: number) => Math.max(0, now - context.created_at);

/** The record updates of the seed's failure transitions (2, 6 and 7). */
export const failure = (context: SessionContext, now: number, error_message: string) => ({
  last_activity_at: now,
  completed_at: now,
  duration_ms: durationMs(context, now),
  error_message,
});

export const exitOf = (event: { code?: number | null; signal?: string | null; reason: string }) => ({
  code: event.code ?? null,
  signal: event.signal ?? null,
  reason: event.reason,
});

/** Seed 5: Claude exited 0 after a successful result; the session completes with its cost, tokens and summary. */
export function completion(context: SessionContext, event: SessionEventOf<'agent.exited'>): Partial<SessionContext> {
  const result = context.result!;
  const tokens =
    context.tokens.input + context.tokens.output + context.tokens.cache_read + context.tokens.cache_creation;
  return {
    last_activity_at: event.at,
    completed_at: event.at,
    duration_ms: durationMs(context, event.at),
    cost_usd: result.cost_usd,
    total_tokens: result.total_tokens || tokens,
    summary: summarizeSession(result.text || context.query),
    exit: exitOf(event),
  };
}

/**
 * An interrupt asked for (a person's INTERRUPT, or INTERRUPT_REQUESTED): the message the session
 * will fail with once the agent exits on its SIGINT (the seed's, by the state the request came in),
 * and the end of the grace the agent has to write its last words and exit.
 */
export function requestInterrupt(
  context: SessionContext,
  event: SessionEventOf<'INTERRUPT'> | SessionEventOf<'INTERRUPT_REQUESTED'>,
  waiting: boolean,
): Partial<SessionContext> {
  const message = waiting
    ? SESSION_ERRORS.interruptedWaiting
    : event.reason
      ? `Interrupted: ${event.reason}`
      : 'Interrupted';
  const grace = context.config.interrupt_grace_ms ?? DEFAULT_SESSION_INTERRUPT_GRACE_MS;
  return { last_activity_at: event.at, interrupt_requested: { message, at: event.at, grace_until: event.at + grace } };
}

/**
 * An approval timed out (seed 7) while the agent runs: the approval is expired, which Claude's
 * waiting permission prompt call answers with a deny, and the session will fail as the seed says,
 * once the agent has had the deny: on its exit, or at the grace's end (no SIGINT: it would cut the
 * answer off). A person's interrupt asked for earlier stays as it was.
 */
export function expireApproval(
  context: SessionContext,
  event: SessionEventOf<'APPROVAL_TIMEOUT'>,
): Partial<SessionContext> {
  const grace = context.config.interrupt_grace_ms ?? DEFAULT_SESSION_INTERRUPT_GRACE_MS;
  return {
    last_activity_at: event.at,
    approvals: expired(context, event),
    interrupt_requested: context.interrupt_requested ?? {
      message: SESSION_ERRORS.interruptedWaiting,
      at: event.at,
      grace_until: event.at + grace,
      approval_id: event.approval_id,
    },
  };
}

/** The approvals with the one that timed out marked expired. */
export const expired = (context: SessionContext, event: SessionEventOf<'APPROVAL_TIMEOUT'>) =>
  context.approvals.map((a) =>
    a.approval_id === event.approval_id ? { ...a, status: 'expired' as const, resolved_at: event.at } : a,
  );

/** The cost and tokens of the result an interrupted agent wrote on its way out, if it did. */
const interruptedSpend = (context: SessionContext) => ({
  cost_usd: context.result?.cost_usd ?? null,
  total_tokens: context.result ? context.result.total_tokens : null,
});

/** The agent exited on the SIGINT of an interrupt: failed as interrupted, with the cost its result reported. */
export function interruptedExit(
  context: SessionContext,
  event: SessionEventOf<'agent.exited'>,
): Partial<SessionContext> {
  return {
    ...failure(context, event.at, context.interrupt_requested!.message),
    exit: exitOf(event),
    ...interruptedSpend(context),
  };
}

/**
 * INTERRUPT once an interrupt was asked for (the grace's end, or a person insisting): failed at
 * once as interrupted, keeping the cost of a result the agent wrote without exiting yet.
 */
export function interruptedWithoutExit(context: SessionContext, at: number): Partial<SessionContext> {
  return { ...failure(context, at, context.interrupt_requested!.message), ...interruptedSpend(context) };
}

/** Why a running session that exited did not complete. */
export function exitFailureMessage(context: SessionContext, event: { code?: number | null; reason: string }): string {
  if (context.result?.is_error)
    return context.result.text
      ? `Claude reported an error: ${context.result.text}`
      : `Claude reported an error (${event.reason})`;
  if (event.code === 0) return `Claude exited without a result (${event.reason})`;
  return event.reason;
}

/** The earliest moment a pending approval times out, or undefined when none can. */
export function nextApprovalDeadline(
  context: Pick<SessionContext, 'approvals'>,
): { deadline: number; approval_id: string } | undefined {
  let earliest: { deadline: number; approval_id: string } | undefined;
  for (const a of context.approvals) {
    if (a.status === 'pending' && a.expires_at !== null && (!earliest || a.expires_at < earliest.deadline)) {
      earliest = { deadline: a.expires_at, approval_id: a.approval_id };
    }
  }
  return earliest;
}

type Usage = NonNullable<SessionEventOf<'agent.assistant'>['usage']>;

const tokensOf = (u: Usage) => ({
  input: u.input_tokens,
  output: u.output_tokens,
  cache_read: u.cache_read_input_tokens ?? 0,
  cache_creation: u.cache_creation_input_tokens ?? 0,
});

/** A running total: each message (the agent actor reports one per message id) adds its usage once. */
export function addUsage(context: SessionContext, event: SessionEventOf<'agent.assistant'>): Partial<SessionContext> {
  // A message from the model ends a run of retries; Claude's own (an API error) does not.
  const retrying = event.synthetic ? {} : { retrying: null };
  if (!event.usage) return { last_activity_at: event.at, ...retrying };
  const add = tokensOf(event.usage);
  const t = context.tokens;
  return {
    last_activity_at: event.at,
    ...retrying,
    tokens: {
      input: t.input + add.input,
      output: t.output + add.output,
      cache_read: t.cache_read + add.cache_read,
      cache_creation: t.cache_creation + add.cache_creation,
    },
  };
}

/**
 * The result's usage, where it has one, replaces the running total: it is the agent's own account.
 * Its permission denials join those already recorded.
 */
export function recordResult(context: SessionContext, event: SessionEventOf<'agent.result'>): Partial<SessionContext> {
  return {
    last_activity_at: event.at,
    retrying: null,
    ...(event.usage && { tokens: tokensOf(event.usage) }),
    ...(event.permissionDenials?.length && {
      permission_denials: event.permissionDenials.reduce(
        (denials, d) => withDenial(denials, d, event.at),
        context.permission_denials ?? [],
      ),
    }),
    result: {
      cost_usd: event.costUsd ?? null,
      total_tokens: event.totalTokens,
      text: event.result ?? '',
      is_error: event.isError,
    },
  };
}

/** Claude retrying a model call: kept until its next message or result, which clear it. */
export function recordRetry(context: SessionContext, event: SessionEventOf<'agent.retrying'>): Partial<SessionContext> {
  return { last_activity_at: event.at, retrying: agentRetrying(context.retrying, event) };
}

type Denial = Omit<SessionEventOf<'agent.permission_denied'>, 'type' | 'at'>;

/** One record per tool call: a later report of the same call adds what the first lacked (its message, its input). */
function withDenial(
  denials: readonly SessionPermissionDenial[],
  d: Denial,
  at: number,
): readonly SessionPermissionDenial[] {
  const known = denials.find((k) => k.tool_use_id === d.toolUseId);
  if (!known)
    return [
      ...denials,
      {
        tool_name: d.toolName,
        tool_use_id: d.toolUseId,
        message: d.message ?? null,
        tool_input: d.toolInput ?? null,
        at,
      },
    ];
  return denials.map((k) =>
    k === known
      ? { ...k, message: k.message ?? d.message ?? null, tool_input: k.tool_input ?? d.toolInput ?? null }
      : k,
  );
}

export function recordPermissionDenial(
  context: SessionContext,
  event: SessionEventOf<'agent.permission_denied'>,
): Partial<SessionContext> {
  return {
    last_activity_at: event.at,
    permission_denials: withDenial(context.permission_denials ?? [], event, event.at),
  };
}

/** The tools hld's auto_accept_edits approves without asking. */
export const SESSION_EDIT_TOOLS: readonly string[] = ['Edit', 'Write', 'MultiEdit'];

/**
 * The config rule that approves this tool call without asking, if one does (hld's auto-approve):
 * dangerously_skip_permissions until its timeout after the session's creation, then
 * auto_accept_edits for the edit tools.
 */
export function autoApprovalRule(
  context: Pick<SessionContext, 'config' | 'created_at'>,
  request: { tool_name: string; at: number },
): SessionAutoApproval | undefined {
  const c = context.config;
  const timeout = c.dangerously_skip_permissions_timeout_ms;
  if (c.dangerously_skip_permissions && (timeout === undefined || request.at < context.created_at + timeout))
    return 'dangerously_skip_permissions';
  if (c.auto_accept_edits && SESSION_EDIT_TOOLS.includes(request.tool_name)) return 'auto_accept_edits';
  return undefined;
}

/** hld's auto-approve: the approval is recorded as approved at once, and the status does not change. */
export function autoApprove(
  context: SessionContext,
  event: SessionEventOf<'APPROVAL_REQUESTED'>,
  rule: SessionAutoApproval,
): Partial<SessionContext> {
  const approval: SessionApproval = {
    ...requested(event),
    expires_at: null,
    status: 'approved',
    resolved_at: event.at,
    comment: `approved by the session's ${rule}`,
    auto_approved: rule,
  };
  return { last_activity_at: event.at, approvals: [...context.approvals, approval] };
}

/** What every approval records of the tool call it was asked for. */
const requested = (event: SessionEventOf<'APPROVAL_REQUESTED'>) => ({
  approval_id: event.approval_id,
  tool_name: event.tool_name,
  tool_input: event.tool_input,
  tool_use_id: event.tool_use_id ?? null,
  requested_at: event.at,
});

export function requestApproval(
  context: SessionContext,
  event: SessionEventOf<'APPROVAL_REQUESTED'>,
): Partial<SessionContext> {
  const timeout = context.config.approval_timeout_ms;
  const approval: SessionApproval = {
    ...requested(event),
    expires_at: timeout === undefined ? null : event.at + timeout,
    status: 'pending',
    resolved_at: null,
    comment: null,
  };
  return { last_activity_at: event.at, approvals: [...context.approvals, approval] };
}

export function resolveApproval(
  context: SessionContext,
  event: SessionEventOf<'APPROVAL_RESOLVED'>,
): Partial<SessionContext> {
  return {
    last_activity_at: event.at,
    approvals: context.approvals.map((a) =>
      a.approval_id === event.approval_id
        ? { ...a, status: event.decision, resolved_at: event.at, comment: event.comment ?? null }
        : a,
    ),
  };
}
