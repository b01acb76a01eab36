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
 * An approval that times out while the agent runs is denied to Claude first (its permission
 * prompt call reads the expired approval): the session goes on (running, or waiting_input for
 * other pending approvals) and fails, as the seed says, on the agent's exit or at the grace's end
 * (`interrupt_grace_ms`, the INTERRUPT of the same durable timer). With no agent it fails at once.
 *
 * An interrupt of a running or waiting session keeps what the agent spent: INTERRUPT (or
 * INTERRUPT_REQUESTED) sends the agent SIGINT and records the request; the agent's exit then fails
 * the session with the result Claude writes on its way out (its cost). A durable timer ends the
 * grace (`interrupt_grace_ms`) with a second INTERRUPT, which fails the session at once, as does
 * a person's second INTERRUPT.
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
import {
  SESSION_AGENT_INTERRUPT,
  sessionAgentInput,
  type SessionAgentInput,
  type SessionDeadlineInput,
} from './agent.js';
import { parseSessionInput, type SessionInput } from './config.js';
import { initialContext, type SessionContext } from './context.js';
import { SESSION_ERRORS, type SessionEvent, type SessionEventOf } from './events.js';
import { sessionGuards } from './guards.js';
import {
  addUsage,
  completion,
  exitFailureMessage,
  exitOf,
  failure,
  autoApprovalRule,
  autoApprove,
  nextApprovalDeadline,
  recordPermissionDenial,
  recordResult,
  recordRetry,
  interruptedExit,
  expireApproval,
  expired,
  interruptedWithoutExit,
  requestInterrupt,
  requestApproval,
  resolveApproval,
} from './updates.js';

const APPROVAL_TIMER = 'approvalTimeout';
const INTERRUPT_GRACE_TIMER = 'interruptGrace';

/** While Claude runs, with or without a pending approval, its messages and result update the record. */
const agentReports = {
  'agent.assistant': { guard: 'assistantMessage', actions: 'addUsage' },
  'agent.result': { guard: 'resultReported', actions: 'recordResult' },
  'agent.permission_denied': { guard: 'permissionDenied', actions: 'recordPermissionDenial' },
  'agent.retrying': { guard: 'agentRetrying', actions: 'recordRetry' },
} as const;

/** The agent exited after an interrupt was requested: the session fails as interrupted. */
const exitAfterInterrupt = { guard: 'exitedAfterInterrupt', target: 'failed', actions: 'failInterruptedExit' } as const;

/** A tool call the session's config approves without asking: recorded as approved, the status stays (hld). */
const autoApproval = { guard: 'autoApproved', actions: 'autoApprove' } as const;

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    input: {} as SessionInput,
  },
  guards: sessionGuards,
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
    /**
     * An interrupt asked for: SIGINT to the agent, the request recorded, and a durable timer that
     * sends INTERRUPT at the grace's end.
     */
    askInterrupt: enqueueActions(({ context, event, enqueue, self }, params: { waiting: boolean }) => {
      const asked = requestInterrupt(context, event as SessionEventOf<'INTERRUPT'>, params.waiting);
      enqueue.assign(asked);
      if (self.getSnapshot()?.children?.agent) enqueue.sendTo('agent', SESSION_AGENT_INTERRUPT);
      enqueue.spawnChild('deadline', {
        id: INTERRUPT_GRACE_TIMER,
        input: { deadline: asked.interrupt_requested!.grace_until!, event: { type: 'INTERRUPT' } as EventObject },
      });
    }),
    /** An approval timed out: expired (Claude's call answers with a deny) and the session's end armed. */
    expireApproval: enqueueActions(({ context, event, enqueue }) => {
      const asked = !context.interrupt_requested;
      const update = expireApproval(context, event as SessionEventOf<'APPROVAL_TIMEOUT'>);
      enqueue.assign(update);
      if (asked)
        enqueue.spawnChild('deadline', {
          id: INTERRUPT_GRACE_TIMER,
          input: { deadline: update.interrupt_requested!.grace_until!, event: { type: 'INTERRUPT' } as EventObject },
        });
    }),
    /**
     * Seed 6 (and the same request while starting): the interrupt, with its reason if given; once
     * asked for, with the request's message and the cost of a result the agent already wrote.
     */
    failInterrupted: assign(({ context, event }) =>
      event.type !== 'INTERRUPT'
        ? {}
        : context.interrupt_requested
          ? interruptedWithoutExit(context, event.at)
          : failure(context, event.at, event.reason ? `Interrupted: ${event.reason}` : 'Interrupted'),
    ),
    /** Seed 7: the same while waiting for a person, with the seed's message. */
    failInterruptedWaiting: assign(({ context, event }) =>
      context.interrupt_requested
        ? interruptedWithoutExit(context, event.at)
        : failure(context, event.at, SESSION_ERRORS.interruptedWaiting),
    ),
    addUsage: assign(({ context, event }) => addUsage(context, event as SessionEventOf<'agent.assistant'>)),
    recordResult: assign(({ context, event }) => recordResult(context, event as SessionEventOf<'agent.result'>)),
    recordRetry: assign(({ context, event }) => recordRetry(context, event as SessionEventOf<'agent.retrying'>)),
    recordPermissionDenial: assign(({ context, event }) =>
      recordPermissionDenial(context, event as SessionEventOf<'agent.permission_denied'>),
    ),
    autoApprove: assign(({ context, event }) => {
      const request = event as SessionEventOf<'APPROVAL_REQUESTED'>;
      return autoApprove(context, request, autoApprovalRule(context, request)!);
    }),
    requestApproval: assign(({ context, event }) =>
      requestApproval(context, event as SessionEventOf<'APPROVAL_REQUESTED'>),
    ),
    failInterruptedExit: assign(({ context, event }) =>
      interruptedExit(context, event as SessionEventOf<'agent.exited'>),
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
          guard: 'agentSpawned',
          actions: assign(({ event }) => ({
            last_activity_at: event.at,
            agent: { pid: event.pid, pid_start: event.pidStart, log_path: event.logPath },
          })),
        },
        // Seed 1: the Claude session id is received.
        'agent.session': {
          guard: 'sessionIdReceived',
          target: 'running',
          actions: assign(({ event }) => ({ last_activity_at: event.at, claude_session_id: event.sessionId })),
        },
        // Seed 2: launch error.
        'agent.exited': {
          guard: 'agentExited',
          target: 'failed',
          actions: assign(({ context, event }) => ({
            ...failure(context, event.at, `Claude exited before reporting a session ID: ${event.reason}`),
            exit: exitOf(event),
          })),
        },
        // Seed 2: launch timeout.
        START_TIMEOUT: {
          guard: 'startTimedOut',
          target: 'failed',
          actions: assign(({ context, event }) => failure(context, event.at, SESSION_ERRORS.startTimeout)),
        },
        INTERRUPT: { guard: 'interrupted', target: 'failed', actions: ['interruptAgent', 'failInterrupted'] },
        SESSION_ORPHANED: { guard: 'orphaned', target: 'failed', actions: 'failOrphaned' },
      },
    },
    /** Claude is working. */
    running: {
      on: {
        ...agentReports,
        APPROVAL_REQUESTED: [
          autoApproval,
          // Seed 3: an approval is correlated to one of the session's tool calls.
          { guard: 'approvalRequested', target: 'waiting_input', actions: 'requestApproval' },
        ],
        'agent.exited': [
          // Seed 7, after an approval timed out and Claude had the deny: failed, whatever it reported.
          { guard: 'exitedAfterApprovalTimeout', target: 'failed', actions: 'failInterruptedExit' },
          // Seed 5: exit 0 with a successful result.
          {
            guard: 'exitedWithResult',
            target: 'completed',
            actions: assign(({ context, event }) => completion(context, event)),
          },
          // Seed 6, after an interrupt was requested: the agent exited on its SIGINT.
          exitAfterInterrupt,
          // Seed 6: a non-zero exit (or an exit without a successful result).
          {
            guard: 'agentExited',
            target: 'failed',
            actions: assign(({ context, event }) => ({
              ...failure(context, event.at, exitFailureMessage(context, event)),
              exit: exitOf(event),
            })),
          },
        ],
        // Seed 6: interrupt requested. First SIGINT, the failure when the agent exits on it (with
        // its result's cost) or at the grace's end (the timer's INTERRUPT), whichever comes first.
        INTERRUPT: [
          { guard: 'interruptAsked', actions: { type: 'askInterrupt', params: { waiting: false } } },
          { guard: 'interrupted', target: 'failed', actions: ['interruptAgent', 'failInterrupted'] },
        ],
        INTERRUPT_REQUESTED: {
          guard: 'interruptRequested',
          actions: { type: 'askInterrupt', params: { waiting: false } },
        },
        SESSION_ORPHANED: { guard: 'orphaned', target: 'failed', actions: 'failOrphaned' },
      },
    },
    /** Blocked on one or more approvals. */
    waiting_input: {
      meta: {
        unbounded:
          'one round per tool call the agent asks approval for: the agent decides how many; INTERRUPT and the agent exit end it',
      },
      // The earliest pending deadline arms one durable timer; re-entering re-arms it.
      entry: enqueueActions(({ context, enqueue }) => {
        const due = nextApprovalDeadline(context);
        if (due) {
          enqueue.spawnChild('deadline', {
            id: APPROVAL_TIMER,
            input: {
              deadline: due.deadline,
              event: { type: 'APPROVAL_TIMEOUT', approval_id: due.approval_id } as EventObject,
            },
          });
        }
      }),
      exit: stopChild(APPROVAL_TIMER),
      on: {
        ...agentReports,
        APPROVAL_REQUESTED: [
          autoApproval,
          { guard: 'approvalRequested', target: 'waiting_input', reenter: true, actions: 'requestApproval' },
        ],
        APPROVAL_RESOLVED: [
          {
            guard: 'resolvesOtherPending',
            target: 'waiting_input',
            reenter: true,
            actions: assign(({ context, event }) => resolveApproval(context, event)),
          },
          // Seed 4: approval resolved (approved, denied or responded).
          {
            guard: 'resolvesLastPending',
            target: 'running',
            actions: assign(({ context, event }) => resolveApproval(context, event)),
          },
        ],
        // Seed 7: approval timeout. Claude is denied the call first; the session fails once it had the deny.
        APPROVAL_TIMEOUT: [
          { guard: 'approvalExpiresOtherPending', target: 'waiting_input', reenter: true, actions: 'expireApproval' },
          { guard: 'approvalExpiresForAgent', target: 'running', actions: 'expireApproval' },
          {
            guard: 'approvalTimedOut',
            target: 'failed',
            actions: assign(({ context, event }) => ({
              ...failure(context, event.at, SESSION_ERRORS.interruptedWaiting),
              approvals: expired(context, event),
            })),
          },
        ],
        // Seed 7: session interrupt, as in running: SIGINT first, the failure on the exit or the grace's end.
        INTERRUPT: [
          { guard: 'interruptAsked', actions: { type: 'askInterrupt', params: { waiting: true } } },
          { guard: 'interrupted', target: 'failed', actions: ['interruptAgent', 'failInterruptedWaiting'] },
        ],
        INTERRUPT_REQUESTED: {
          guard: 'interruptRequested',
          actions: { type: 'askInterrupt', params: { waiting: true } },
        },
        'agent.exited': [
          exitAfterInterrupt,
          {
            guard: 'agentExited',
            target: 'failed',
            actions: assign(({ context, event }) => ({
              ...failure(context, event.at, `Claude exited while waiting for approval: ${event.reason}`),
              exit: exitOf(event),
            })),
          },
        ],
        SESSION_ORPHANED: {
          guard: 'orphaned',
          target: 'failed',
          actions: assign(({ context, event }) => failure(context, event.at, SESSION_ERRORS.orphaned)),
        },
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
  },
});
