/**
 * The session lifecycle of the HumanLayer daemon (hld): one Claude Code session, from launch to
 * completion (seed: hld-session-state-machine.txt). 5 states and the seed's 7 status transitions:
 *
 *   starting      -> running        the Claude session id arrives (agent.session)
 *   starting      -> failed         launch error (agent.exited) or the start timeout
 *   running       -> waiting_input  a tool call needs approval (APPROVAL_REQUESTED)
 *   waiting_input -> running        the last pending approval is resolved (APPROVAL_RESOLVED)
 *   running       -> completed      Claude exits 0 after a successful result (agent.exited)
 *   running       -> failed         a non-zero exit, an error result, or INTERRUPT
 *   waiting_input -> failed         INTERRUPT or APPROVAL_TIMEOUT
 *
 * plus the seed's orphan rule (SESSION_ORPHANED on a daemon restart) and events that only update
 * the record (pid, tokens, the result, further approvals). The context is the session record in
 * the seed's field names. Time comes only from `event.at` (stamped by the runtime), never the
 * wall clock, so the same events always give the same record.
 *
 * Actors, provided by the session layer with `machine.provide`: `agent` (the shared agent process,
 * invoked for the whole life of the session) and `deadline` (the durable timer, for the start
 * timeout and approval timeouts). Here they are placeholders: this module stays pure.
 */
import { assign, enqueueActions, fromCallback, setup, stopChild, type EventObject } from 'xstate';
import { z } from 'zod';
import { InvalidTransitionError } from '../src/graph/invalid-transition-error.js';
import { metadataGuard, parseInput } from '../src/graph/metadata-guard.js';
import { finalStateNames, leafStates, stateName, transitionTable } from '../src/graph/transition-table.js';
import type { AgentProcessInput } from '../src/actors/agent-process.js';
import type { RecoveringRun } from './lifecycle.js';

// ---------------------------------------------------------------------------------------------
// Configuration and input

/** What a session runs with; a continued (child) session inherits all of it but `max_turns`. */
export const sessionConfigSchema = z.strictObject({
  /** The agent program and its leading arguments; the Claude flags are appended. Default `['claude']`. */
  command: z.array(z.string().min(1)).min(1).optional(),
  model: z.string().min(1).optional(),
  working_dir: z.string().min(1).optional(),
  system_prompt: z.string().optional(),
  append_system_prompt: z.string().optional(),
  permission_prompt_tool: z.string().min(1).optional(),
  allowed_tools: z.array(z.string().min(1)).optional(),
  disallowed_tools: z.array(z.string().min(1)).optional(),
  additional_directories: z.array(z.string().min(1)).optional(),
  /** MCP servers by name, passed to Claude as `--mcp-config {"mcpServers": ...}`. */
  mcp_servers: z.record(z.string(), z.unknown()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  max_turns: z.number().int().positive().optional(),
  /** How long a session may stay in starting before it fails (seed: 60 s). */
  start_timeout_ms: z.number().int().positive().optional(),
  /** How long an approval may stay pending before the session fails; unset means no limit. */
  approval_timeout_ms: z.number().int().positive().optional(),
});
export type SessionConfig = z.infer<typeof sessionConfigSchema>;

export const sessionInputSchema = z.strictObject({
  /** The prompt, written to the agent's stdin. */
  query: z.string().min(1),
  /** When the session was created, on the runtime's clock: duration and the start deadline count from it. */
  created_at: z.number(),
  /** Where the agent's raw stream-json output is kept. */
  log_path: z.string().min(1),
  config: sessionConfigSchema.optional(),
  /** Set on a continued session: the session it continues. */
  parent_session_id: z.string().min(1).optional(),
  /** The Claude session to resume (`--resume <id> --fork-session`); a child resumes its parent's. */
  resume_claude_session_id: z.string().min(1).optional(),
});
export type SessionInput = z.infer<typeof sessionInputSchema>;

export const DEFAULT_SESSION_START_TIMEOUT_MS = 60_000;

/** Validates a session's input; throws `MetadataValidationError` naming every missing or wrong field. */
export function parseSessionInput(input: unknown): SessionInput {
  return parseInput(sessionInputSchema, input, 'Session', 'starting');
}

// ---------------------------------------------------------------------------------------------
// The session record (context)

export type SessionApprovalStatus = 'pending' | 'approved' | 'denied' | 'responded' | 'expired';

/** A tool call that waits, or waited, for a person: hld's approval correlated to a tool call. */
export interface SessionApproval {
  readonly approval_id: string;
  readonly tool_name: string;
  readonly tool_input: Readonly<Record<string, unknown>>;
  readonly tool_use_id: string | null;
  readonly requested_at: number;
  /** When a pending approval times out (`approval_timeout_ms` after the request), or null for never. */
  readonly expires_at: number | null;
  readonly status: SessionApprovalStatus;
  readonly resolved_at: number | null;
  /** The reason for a denial, or the person's response. */
  readonly comment: string | null;
}

export interface SessionContext {
  readonly query: string;
  readonly config: SessionConfig;
  readonly log_path: string;
  readonly parent_session_id: string | null;
  readonly resume_claude_session_id: string | null;
  readonly created_at: number;
  /** Absolute: a session restored after a restart keeps its original deadline. */
  readonly start_deadline: number;
  readonly last_activity_at: number;
  readonly claude_session_id: string | null;
  /** The agent process, once spawned: what a restarted daemon needs to find it again. */
  readonly agent: { readonly pid: number; readonly pid_start: string; readonly log_path: string } | null;
  readonly approvals: readonly SessionApproval[];
  /** Summed from the assistant messages as they arrive. */
  readonly tokens: { readonly input: number; readonly output: number; readonly cache_read: number; readonly cache_creation: number };
  /** Claude's `result` message, once it arrived. */
  readonly result: { readonly cost_usd: number; readonly total_tokens: number; readonly text: string; readonly is_error: boolean } | null;
  readonly exit: { readonly code: number | null; readonly signal: string | null; readonly reason: string } | null;
  readonly completed_at: number | null;
  readonly duration_ms: number | null;
  readonly cost_usd: number | null;
  readonly total_tokens: number | null;
  readonly summary: string | null;
  readonly error_message: string | null;
}

function initialContext(input: SessionInput): SessionContext {
  const config = input.config ?? {};
  return {
    query: input.query,
    config,
    log_path: input.log_path,
    parent_session_id: input.parent_session_id ?? null,
    resume_claude_session_id: input.resume_claude_session_id ?? null,
    created_at: input.created_at,
    start_deadline: input.created_at + (config.start_timeout_ms ?? DEFAULT_SESSION_START_TIMEOUT_MS),
    last_activity_at: input.created_at,
    claude_session_id: null,
    agent: null,
    approvals: [],
    tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    result: null,
    exit: null,
    completed_at: null,
    duration_ms: null,
    cost_usd: null,
    total_tokens: null,
    summary: null,
    error_message: null,
  };
}

// ---------------------------------------------------------------------------------------------
// Events: the agent.* events of the shared agent process actor, and the session's own

/** Every event carries its time; the runtime stamps it. */
const at = z.number();

const agentSpawnedSchema = z.object({ type: z.literal('agent.spawned'), pid: z.number().int().positive(), pidStart: z.string(), logPath: z.string(), at });
const agentSessionSchema = z.object({ type: z.literal('agent.session'), sessionId: z.string().min(1), at });
const usageSchema = z.looseObject({
  input_tokens: z.number().nonnegative(),
  output_tokens: z.number().nonnegative(),
  cache_read_input_tokens: z.number().nonnegative().optional(),
  cache_creation_input_tokens: z.number().nonnegative().optional(),
});
const agentAssistantSchema = z.object({ type: z.literal('agent.assistant'), usage: usageSchema, text: z.string(), at });
const agentResultSchema = z.object({
  type: z.literal('agent.result'),
  costUsd: z.number().nonnegative(),
  totalTokens: z.number().nonnegative(),
  result: z.string().nullish(),
  isError: z.boolean(),
  sessionId: z.string().nullish(),
  at,
});
const agentExitedSchema = z.object({ type: z.literal('agent.exited'), code: z.number().int().nullish(), signal: z.string().nullish(), reason: z.string(), at });
const startTimeoutSchema = z.object({ type: z.literal('START_TIMEOUT'), at });
const approvalRequestedSchema = z.object({
  type: z.literal('APPROVAL_REQUESTED'),
  approval_id: z.string().min(1),
  tool_name: z.string().min(1),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().min(1).optional(),
  at,
});
export const SESSION_APPROVAL_DECISIONS = ['approved', 'denied', 'responded'] as const;
const approvalResolvedSchema = z.object({
  type: z.literal('APPROVAL_RESOLVED'),
  approval_id: z.string().min(1),
  decision: z.enum(SESSION_APPROVAL_DECISIONS),
  comment: z.string().optional(),
  at,
});
const approvalTimeoutSchema = z.object({ type: z.literal('APPROVAL_TIMEOUT'), approval_id: z.string().min(1), at });
const interruptSchema = z.object({ type: z.literal('INTERRUPT'), reason: z.string().min(1).optional(), at });
const orphanedSchema = z.object({ type: z.literal('SESSION_ORPHANED'), at });

export type SessionEvent =
  | z.infer<typeof agentSpawnedSchema>
  | z.infer<typeof agentSessionSchema>
  | z.infer<typeof agentAssistantSchema>
  | z.infer<typeof agentResultSchema>
  | z.infer<typeof agentExitedSchema>
  | z.infer<typeof startTimeoutSchema>
  | z.infer<typeof approvalRequestedSchema>
  | z.infer<typeof approvalResolvedSchema>
  | z.infer<typeof approvalTimeoutSchema>
  | z.infer<typeof interruptSchema>
  | z.infer<typeof orphanedSchema>;

/** The error messages the seed fixes. */
export const SESSION_ERRORS = {
  startTimeout: 'Timeout waiting for Claude session ID',
  interruptedWaiting: 'Interrupted while waiting for approval',
  orphaned: 'Session orphaned due to daemon restart',
} as const;

// ---------------------------------------------------------------------------------------------
// Guards. Each is a metadata guard (a zod schema, so a refusal names the bad fields) or, where an
// event chooses between targets, a named decision that the last branch's metadata guard backs.

const named = <F extends (...args: any[]) => boolean>(name: string, guard: F): F => Object.defineProperty(guard, 'name', { value: name });

export const pendingSessionApprovalIds = (context: Pick<SessionContext, 'approvals'>): string[] =>
  context.approvals.filter((a) => a.status === 'pending').map((a) => a.approval_id);

/** Adds the pending approvals to what a schema sees, so it can refuse an id that is not pending. */
const withPending = (event: object, context: SessionContext | undefined) => ({ ...event, pending_approvals: context ? pendingSessionApprovalIds(context) : [] });
const pendingList = (ids: readonly string[]) => (ids.length ? ids.join(', ') : 'none');
const mustBePending = (value: { approval_id: string; pending_approvals: string[] }, ctx: z.RefinementCtx) => {
  if (!value.pending_approvals.includes(value.approval_id)) {
    ctx.addIssue({
      code: 'custom',
      path: ['approval_id'],
      message: `'${value.approval_id}' is not a pending approval of this session (pending: ${pendingList(value.pending_approvals)})`,
    });
  }
};
const pendingApprovals = { pending_approvals: z.array(z.string()) };

const guards = {
  agentSpawned: named('agentSpawned', metadataGuard(agentSpawnedSchema, 'starting')),
  sessionIdReceived: named('sessionIdReceived', metadataGuard(agentSessionSchema, 'running')),
  assistantMessage: named('assistantMessage', metadataGuard(agentAssistantSchema, 'running')),
  resultReported: named('resultReported', metadataGuard(agentResultSchema, 'running')),
  agentExited: named('agentExited', metadataGuard(agentExitedSchema, 'failed')),
  startTimedOut: named('startTimedOut', metadataGuard(startTimeoutSchema, 'failed')),
  interrupted: named('interrupted', metadataGuard(interruptSchema, 'failed')),
  orphaned: named('orphaned', metadataGuard(orphanedSchema, 'failed')),
  approvalRequested: named(
    'approvalRequested',
    metadataGuard(
      approvalRequestedSchema.extend({ known: z.array(z.string()) }).superRefine((value, ctx) => {
        if (value.known.includes(value.approval_id)) {
          ctx.addIssue({ code: 'custom', path: ['approval_id'], message: `'${value.approval_id}' was already requested in this session; approval ids are unique` });
        }
      }),
      'waiting_input',
      (event, context: SessionContext | undefined) => ({ ...event, known: context?.approvals.map((a) => a.approval_id) ?? [] }),
    ),
  ),
  // Backs the last branch of APPROVAL_RESOLVED: the earlier branch takes every case where others stay pending.
  resolvesLastPending: named(
    'resolvesLastPending',
    metadataGuard(approvalResolvedSchema.extend(pendingApprovals).superRefine(mustBePending), 'running', withPending),
  ),
  approvalTimedOut: named(
    'approvalTimedOut',
    metadataGuard(approvalTimeoutSchema.extend(pendingApprovals).superRefine(mustBePending), 'failed', withPending),
  ),
};

type GuardArgs = { context: SessionContext; event: any };

/** Claude exited 0 after a result that is not an error: the session completed. */
const exitedWithResult = named(
  'exitedWithResult',
  ({ context, event }: GuardArgs) => guards.agentExited({ event }) && event.code === 0 && context.result !== null && !context.result.is_error,
);
/** An approval is resolved while others are still pending: the session keeps waiting. */
const resolvesOtherPending = named(
  'resolvesOtherPending',
  ({ context, event }: GuardArgs) => guards.resolvesLastPending({ context, event }) && pendingSessionApprovalIds(context).length > 1,
);

// ---------------------------------------------------------------------------------------------
// Pure helpers used by the actions

/** hld's summary: whitespace collapsed, at most `max` characters, "..." when cut. */
export function summarizeSession(text: string, max = 50): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  return chars.length <= max ? clean : `${chars.slice(0, max - 3).join('')}...`;
}

const durationMs = (context: SessionContext, now: number) => Math.max(0, now - context.created_at);

/** The record updates of the seed's failure transitions (2, 6 and 7). */
const failure = (context: SessionContext, now: number, error_message: string) => ({
  last_activity_at: now,
  completed_at: now,
  duration_ms: durationMs(context, now),
  error_message,
});

const exitOf = (event: { code?: number | null; signal?: string | null; reason: string }) => ({
  code: event.code ?? null,
  signal: event.signal ?? null,
  reason: event.reason,
});

/** Why a running session that exited did not complete. */
function exitFailureMessage(context: SessionContext, event: { code?: number | null; reason: string }): string {
  if (context.result?.is_error) return context.result.text ? `Claude reported an error: ${context.result.text}` : `Claude reported an error (${event.reason})`;
  if (event.code === 0) return `Claude exited without a result (${event.reason})`;
  return event.reason;
}

/** The Claude Code command line for a session: its config as flags, stream-json out, prompt on stdin. */
export function sessionClaudeCommand(context: Pick<SessionContext, 'config' | 'resume_claude_session_id'>): string[] {
  const c = context.config;
  const args = [...(c.command ?? ['claude']), '--print', '--output-format', 'stream-json', '--verbose'];
  if (context.resume_claude_session_id) args.push('--resume', context.resume_claude_session_id, '--fork-session');
  if (c.model) args.push('--model', c.model);
  if (c.system_prompt) args.push('--system-prompt', c.system_prompt);
  if (c.append_system_prompt) args.push('--append-system-prompt', c.append_system_prompt);
  if (c.permission_prompt_tool) args.push('--permission-prompt-tool', c.permission_prompt_tool);
  if (c.allowed_tools?.length) args.push('--allowedTools', c.allowed_tools.join(','));
  if (c.disallowed_tools?.length) args.push('--disallowedTools', c.disallowed_tools.join(','));
  for (const dir of c.additional_directories ?? []) args.push('--add-dir', dir);
  if (c.mcp_servers && Object.keys(c.mcp_servers).length) args.push('--mcp-config', JSON.stringify({ mcpServers: c.mcp_servers }));
  if (c.max_turns !== undefined) args.push('--max-turns', String(c.max_turns));
  return args;
}

/** The input of the shared agent process actor (src/actors/agent-process.ts): a session always has a prompt. */
export type SessionAgentInput = AgentProcessInput & { prompt: string };

/**
 * Where the daemon appends each committed approval decision (one JSON line: approval_id, decision,
 * comment), and the environment variable that tells the agent (and the permission prompt tool it
 * starts, which inherits its environment) where to wait for them.
 */
export const sessionDecisionsPath = (logPath: string) => `${logPath}.decisions`;
export const SESSION_DECISIONS_ENV = 'STATEWRIGHT_SESSION_DECISIONS';

export function sessionAgentInput(context: SessionContext): SessionAgentInput {
  return {
    command: sessionClaudeCommand(context),
    ...(context.config.working_dir && { cwd: context.config.working_dir }),
    env: { ...context.config.env, [SESSION_DECISIONS_ENV]: sessionDecisionsPath(context.log_path) },
    prompt: context.query,
    logPath: context.log_path,
  };
}

/** The earliest moment a pending approval times out, or undefined when none can. */
export function nextApprovalDeadline(context: Pick<SessionContext, 'approvals'>): { deadline: number; approval_id: string } | undefined {
  let earliest: { deadline: number; approval_id: string } | undefined;
  for (const a of context.approvals) {
    if (a.status === 'pending' && a.expires_at !== null && (!earliest || a.expires_at < earliest.deadline)) {
      earliest = { deadline: a.expires_at, approval_id: a.approval_id };
    }
  }
  return earliest;
}

/** The input of the durable timer actor (src/actors/deadline-timer.ts). */
export interface SessionDeadlineInput {
  deadline: number;
  event: EventObject;
}

/** What the agent process is sent to interrupt it: hld's Interrupt() is SIGINT. */
export const SESSION_AGENT_INTERRUPT = { type: 'agent.signal', signal: 'SIGINT' } as const;

// ---------------------------------------------------------------------------------------------
// The machine

const APPROVAL_TIMER = 'approvalTimeout';

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    input: {} as SessionInput,
  },
  actors: {
    agent: fromCallback<EventObject, SessionAgentInput>(() => {}),
    deadline: fromCallback<EventObject, SessionDeadlineInput>(() => {}),
  },
  actions: {
    /**
     * SIGINT to the agent, delivered before reaching a final state stops it. A session restored
     * without its agent (nothing to signal) must still fail cleanly, so the send is conditional.
     */
    interruptAgent: enqueueActions(({ enqueue, self }) => {
      if (self.getSnapshot()?.children?.agent) enqueue.sendTo('agent', SESSION_AGENT_INTERRUPT);
    }),
    /** Seed 6 (and the same request while starting): the interrupt, with its reason if given. */
    failInterrupted: assign(({ context, event }) =>
      event.type === 'INTERRUPT' ? failure(context, event.at, event.reason ? `Interrupted: ${event.reason}` : 'Interrupted') : {},
    ),
    /** A previous daemon left the session active: it is failed, not resumed. */
    failOrphaned: assign(({ context, event }) => failure(context, event.at, SESSION_ERRORS.orphaned)),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => initialContext(parseSessionInput(input)),
  // One agent process for the whole session: invoked at the root, so moving between starting,
  // running and waiting_input never restarts it; reaching completed or failed stops it.
  invoke: { id: 'agent', src: 'agent', input: ({ context }) => sessionAgentInput(context) },
  initial: 'starting',
  states: {
    /** Session created, Claude launched, its session id not yet reported. */
    starting: {
      invoke: {
        id: 'startTimeout',
        src: 'deadline',
        input: ({ context }) => ({ deadline: context.start_deadline, event: { type: 'START_TIMEOUT' } }),
      },
      on: {
        'agent.spawned': {
          guard: guards.agentSpawned,
          actions: assign(({ event }) => ({
            last_activity_at: event.at,
            agent: { pid: event.pid, pid_start: event.pidStart, log_path: event.logPath },
          })),
        },
        // Seed 1: the Claude session id is received.
        'agent.session': {
          guard: guards.sessionIdReceived,
          target: 'running',
          actions: assign(({ event }) => ({ last_activity_at: event.at, claude_session_id: event.sessionId })),
        },
        // Seed 2: launch error.
        'agent.exited': {
          guard: guards.agentExited,
          target: 'failed',
          actions: assign(({ context, event }) => ({
            ...failure(context, event.at, `Claude exited before reporting a session ID: ${event.reason}`),
            exit: exitOf(event),
          })),
        },
        // Seed 2: launch timeout.
        START_TIMEOUT: {
          guard: guards.startTimedOut,
          target: 'failed',
          actions: assign(({ context, event }) => failure(context, event.at, SESSION_ERRORS.startTimeout)),
        },
        INTERRUPT: { guard: guards.interrupted, target: 'failed', actions: ['interruptAgent', 'failInterrupted'] },
        SESSION_ORPHANED: { guard: guards.orphaned, target: 'failed', actions: 'failOrphaned' },
      },
    },
    /** Claude is working. */
    running: {
      on: {
        'agent.assistant': { guard: guards.assistantMessage, actions: assign(({ context, event }) => addUsage(context, event)) },
        'agent.result': { guard: guards.resultReported, actions: assign(({ event }) => recordResult(event)) },
        // Seed 3: an approval is correlated to one of the session's tool calls.
        APPROVAL_REQUESTED: {
          guard: guards.approvalRequested,
          target: 'waiting_input',
          actions: assign(({ context, event }) => requestApproval(context, event)),
        },
        'agent.exited': [
          // Seed 5: exit 0 with a successful result.
          {
            guard: exitedWithResult,
            target: 'completed',
            actions: assign(({ context, event }) => {
              const result = context.result!;
              const tokens = context.tokens.input + context.tokens.output + context.tokens.cache_read + context.tokens.cache_creation;
              return {
                last_activity_at: event.at,
                completed_at: event.at,
                duration_ms: durationMs(context, event.at),
                cost_usd: result.cost_usd,
                total_tokens: result.total_tokens || tokens,
                summary: summarizeSession(result.text || context.query),
                exit: exitOf(event),
              };
            }),
          },
          // Seed 6: a non-zero exit (or an exit without a successful result).
          {
            guard: guards.agentExited,
            target: 'failed',
            actions: assign(({ context, event }) => ({ ...failure(context, event.at, exitFailureMessage(context, event)), exit: exitOf(event) })),
          },
        ],
        // Seed 6: interrupt requested.
        INTERRUPT: { guard: guards.interrupted, target: 'failed', actions: ['interruptAgent', 'failInterrupted'] },
        SESSION_ORPHANED: { guard: guards.orphaned, target: 'failed', actions: 'failOrphaned' },
      },
    },
    /** Blocked on one or more approvals. */
    waiting_input: {
      // The earliest pending deadline arms one durable timer; re-entering re-arms it.
      entry: enqueueActions(({ context, enqueue }) => {
        const due = nextApprovalDeadline(context);
        if (due) {
          enqueue.spawnChild('deadline', {
            id: APPROVAL_TIMER,
            input: { deadline: due.deadline, event: { type: 'APPROVAL_TIMEOUT', approval_id: due.approval_id } as EventObject },
          });
        }
      }),
      exit: stopChild(APPROVAL_TIMER),
      on: {
        'agent.assistant': { guard: guards.assistantMessage, actions: assign(({ context, event }) => addUsage(context, event)) },
        'agent.result': { guard: guards.resultReported, actions: assign(({ event }) => recordResult(event)) },
        APPROVAL_REQUESTED: {
          guard: guards.approvalRequested,
          target: 'waiting_input',
          reenter: true,
          actions: assign(({ context, event }) => requestApproval(context, event)),
        },
        APPROVAL_RESOLVED: [
          {
            guard: resolvesOtherPending,
            target: 'waiting_input',
            reenter: true,
            actions: assign(({ context, event }) => resolveApproval(context, event)),
          },
          // Seed 4: approval resolved (approved, denied or responded).
          { guard: guards.resolvesLastPending, target: 'running', actions: assign(({ context, event }) => resolveApproval(context, event)) },
        ],
        // Seed 7: approval timeout.
        APPROVAL_TIMEOUT: {
          guard: guards.approvalTimedOut,
          target: 'failed',
          actions: assign(({ context, event }) => ({
            ...failure(context, event.at, SESSION_ERRORS.interruptedWaiting),
            approvals: context.approvals.map((a) => (a.approval_id === event.approval_id ? { ...a, status: 'expired' as const, resolved_at: event.at } : a)),
          })),
        },
        // Seed 7: session interrupt.
        INTERRUPT: {
          guard: guards.interrupted,
          target: 'failed',
          actions: ['interruptAgent', assign(({ context, event }) => failure(context, event.at, SESSION_ERRORS.interruptedWaiting))],
        },
        'agent.exited': {
          guard: guards.agentExited,
          target: 'failed',
          actions: assign(({ context, event }) => ({
            ...failure(context, event.at, `Claude exited while waiting for approval: ${event.reason}`),
            exit: exitOf(event),
          })),
        },
        SESSION_ORPHANED: {
          guard: guards.orphaned,
          target: 'failed',
          actions: assign(({ context, event }) => failure(context, event.at, SESSION_ERRORS.orphaned)),
        },
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
  },
});

function addUsage(context: SessionContext, event: z.infer<typeof agentAssistantSchema>): Partial<SessionContext> {
  const u = event.usage;
  return {
    last_activity_at: event.at,
    tokens: {
      input: context.tokens.input + u.input_tokens,
      output: context.tokens.output + u.output_tokens,
      cache_read: context.tokens.cache_read + (u.cache_read_input_tokens ?? 0),
      cache_creation: context.tokens.cache_creation + (u.cache_creation_input_tokens ?? 0),
    },
  };
}

function recordResult(event: z.infer<typeof agentResultSchema>): Partial<SessionContext> {
  return {
    last_activity_at: event.at,
    result: { cost_usd: event.costUsd, total_tokens: event.totalTokens, text: event.result ?? '', is_error: event.isError },
  };
}

function requestApproval(context: SessionContext, event: z.infer<typeof approvalRequestedSchema>): Partial<SessionContext> {
  const timeout = context.config.approval_timeout_ms;
  const approval: SessionApproval = {
    approval_id: event.approval_id,
    tool_name: event.tool_name,
    tool_input: event.tool_input,
    tool_use_id: event.tool_use_id ?? null,
    requested_at: event.at,
    expires_at: timeout === undefined ? null : event.at + timeout,
    status: 'pending',
    resolved_at: null,
    comment: null,
  };
  return { last_activity_at: event.at, approvals: [...context.approvals, approval] };
}

function resolveApproval(context: SessionContext, event: z.infer<typeof approvalResolvedSchema>): Partial<SessionContext> {
  return {
    last_activity_at: event.at,
    approvals: context.approvals.map((a) =>
      a.approval_id === event.approval_id ? { ...a, status: event.decision, resolved_at: event.at, comment: event.comment ?? null } : a,
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// The seed's status-level API, derived from the machine

export type SessionStatus = 'starting' | 'running' | 'waiting_input' | 'completed' | 'failed';

/** All statuses in definition order. */
export const SESSION_STATUSES = Object.freeze(leafStates(sessionMachine).map(stateName)) as readonly SessionStatus[];
/** completed and failed. */
export const TERMINAL_SESSION_STATUSES = Object.freeze(finalStateNames(sessionMachine)) as readonly SessionStatus[];
/** starting, running and waiting_input: the statuses of the seed's "active sessions". */
export const ACTIVE_SESSION_STATUSES = Object.freeze(SESSION_STATUSES.filter((s) => !TERMINAL_SESSION_STATUSES.includes(s)));

/** The seed's `allowed_transitions`: the statuses one event can move a session to (self-loops are not status changes). */
const allowed = new Map<string, readonly SessionStatus[]>(SESSION_STATUSES.map((s) => [s, []]));
for (const row of transitionTable(sessionMachine)) {
  const targets = allowed.get(row.source) as SessionStatus[];
  if (row.target !== row.source && !targets.includes(row.target as SessionStatus)) targets.push(row.target as SessionStatus);
}

export function isSessionStatus(value: unknown): value is SessionStatus {
  return typeof value === 'string' && allowed.has(value);
}

export function isTerminalSessionStatus(status: SessionStatus): boolean {
  return TERMINAL_SESSION_STATUSES.includes(status);
}

export function allowedSessionTransitions(from: SessionStatus): readonly SessionStatus[] {
  return allowed.get(from) ?? [];
}

/** Raised by `validateSessionTransition`; `state` is the current status, `event` the requested one. */
export class SessionTransitionError extends InvalidTransitionError {
  constructor(
    readonly from: string,
    readonly to: string,
    message: string,
  ) {
    super(from, to, message);
  }
}

/**
 * The seed's validation step of `TransitionSession`, as a pure check. Throws
 * `Cannot transition from terminal state: S` or `Invalid transition: A → B`. The terminal check
 * comes first: in the seed's order it could never fire, since a terminal state allows nothing.
 */
export function validateSessionTransition(from: SessionStatus, to: SessionStatus): void {
  for (const status of [from, to]) {
    if (!isSessionStatus(status)) {
      throw new SessionTransitionError(from, to, `Unknown session status: '${String(status)}' (expected one of ${SESSION_STATUSES.join(', ')})`);
    }
  }
  if (isTerminalSessionStatus(from)) throw new SessionTransitionError(from, to, `Cannot transition from terminal state: ${from}`);
  if (!allowedSessionTransitions(from).includes(to)) throw new SessionTransitionError(from, to, `Invalid transition: ${from} → ${to}`);
}

export function canTransitionSession(from: SessionStatus, to: SessionStatus): boolean {
  return isSessionStatus(from) && isSessionStatus(to) && !isTerminalSessionStatus(from) && allowedSessionTransitions(from).includes(to);
}

// ---------------------------------------------------------------------------------------------
// Sessions as records: what queries and the API hand out

interface SessionRecordBase extends SessionContext {
  readonly session_id: string;
}
export interface StartingSession extends SessionRecordBase {
  readonly status: 'starting';
}
export interface RunningSession extends SessionRecordBase {
  readonly status: 'running';
  readonly claude_session_id: string;
}
export interface WaitingInputSession extends SessionRecordBase {
  readonly status: 'waiting_input';
  readonly claude_session_id: string;
}
export interface CompletedSession extends SessionRecordBase {
  readonly status: 'completed';
  readonly claude_session_id: string;
  readonly completed_at: number;
  readonly duration_ms: number;
  readonly cost_usd: number;
  readonly total_tokens: number;
  readonly summary: string;
}
export interface FailedSession extends SessionRecordBase {
  readonly status: 'failed';
  readonly completed_at: number;
  readonly duration_ms: number;
  readonly error_message: string;
}
/** A session's record, typed by status: the fields a status guarantees are not nullable. */
export type SessionRecord = StartingSession | RunningSession | WaitingInputSession | CompletedSession | FailedSession;

/** A stored session run, as the runtime lists it (the same shape its recovery hook receives). */
export interface SessionRun {
  readonly runId: string;
  readonly snapshot: { readonly value: unknown; readonly context: SessionContext };
}

export function sessionRecord(run: SessionRun): SessionRecord {
  const status = run.snapshot.value;
  if (!isSessionStatus(status)) {
    throw new TypeError(`Run '${run.runId}' is not a session: its state ${JSON.stringify(status)} is none of ${SESSION_STATUSES.join(', ')}`);
  }
  return { ...run.snapshot.context, session_id: run.runId, status } as SessionRecord;
}

// ---------------------------------------------------------------------------------------------
// Index keys: the seed's queries, derived from the snapshot (the registry's `indexes`)

type SnapshotView = { value: unknown; context: SessionContext };

/** When the oldest pending approval of a waiting session was requested, or null. */
function awaitingSince(snapshot: SnapshotView): number | null {
  if (snapshot.value !== 'waiting_input') return null;
  const pending = snapshot.context.approvals.filter((a) => a.status === 'pending').map((a) => a.requested_at);
  return pending.length ? Math.min(...pending) : null;
}

/**
 * The keys the seed's three queries are read by. The runtime computes them at every commit and the
 * SQLite store keeps them in an indexed side table in the same transaction, so each query is an
 * index walk instead of a scan of every session's snapshot; other stores answer by scanning.
 */
export const sessionIndexes = {
  /** Active sessions, most recent activity first. */
  active_by_activity: {
    order: 'desc',
    of: (s: SnapshotView) => (isSessionStatus(s.value) && !isTerminalSessionStatus(s.value) ? s.context.last_activity_at : null),
  },
  /** Terminal sessions, most recently completed first. */
  terminal_by_completion: {
    order: 'desc',
    of: (s: SnapshotView) => (isSessionStatus(s.value) && isTerminalSessionStatus(s.value) ? s.context.completed_at : null),
  },
  /** Sessions with a pending approval, the longest waiting first. */
  awaiting_input: { order: 'asc', of: awaitingSince },
} as const;

// ---------------------------------------------------------------------------------------------
// Daemon duties that are pure: recovery after a restart, continuing a session

/**
 * The seed's orphan rule, as the registry's recovery hook: a session that a previous daemon left
 * in starting, running or waiting_input fails with "Session orphaned due to daemon restart". A run
 * whose previous owner is still alive belongs to another live daemon and is left alone.
 */
export function recoverSession(run: RecoveringRun): EventObject[] {
  if (!isSessionStatus(run.snapshot.value) || isTerminalSessionStatus(run.snapshot.value)) return [];
  if (run.previousOwner?.alive) return [];
  const orphaned: SessionEvent = { type: 'SESSION_ORPHANED', at: run.now };
  return [orphaned];
}

/** Raised when a session cannot be continued; says why and what to do. */
export class ContinueSessionError extends Error {
  override readonly name = 'ContinueSessionError';
  constructor(
    readonly sessionId: string,
    message: string,
  ) {
    super(message);
  }
}

/** Statuses a session can be continued from. A running session must be interrupted first. */
export const CONTINUABLE_SESSION_STATUSES: readonly SessionStatus[] = ['completed', 'failed'];

export interface ContinueSessionOptions {
  query: string;
  created_at: number;
  log_path: string;
  /** Overrides of the inherited configuration. */
  config?: SessionConfig;
}

/**
 * The input of a child session that continues `parent`: it starts in `starting` with
 * `parent_session_id`, inherits the parent's configuration (but not `max_turns`, as in hld) and
 * resumes the parent's Claude session. The parent is only read, never changed.
 */
export function childSessionInput(parent: SessionRecord, options: ContinueSessionOptions): SessionInput {
  if (!CONTINUABLE_SESSION_STATUSES.includes(parent.status)) {
    throw new ContinueSessionError(
      parent.session_id,
      `Cannot continue session ${parent.session_id} with status ${parent.status} (must be ${CONTINUABLE_SESSION_STATUSES.join(' or ')}${
        parent.status === 'running' || parent.status === 'waiting_input' ? '; interrupt it first' : ''
      })`,
    );
  }
  if (!parent.claude_session_id) {
    throw new ContinueSessionError(
      parent.session_id,
      `Cannot continue session ${parent.session_id}: it never reported a Claude session ID, so there is no conversation to resume; start a new session instead`,
    );
  }
  const { max_turns: _notInherited, ...inherited } = parent.config;
  return parseSessionInput({
    query: options.query,
    created_at: options.created_at,
    log_path: options.log_path,
    config: { ...inherited, ...options.config },
    parent_session_id: parent.session_id,
    resume_claude_session_id: parent.claude_session_id,
  });
}
