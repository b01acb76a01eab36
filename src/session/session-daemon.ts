/**
 * The session daemon: the seed's operations on top of the durable runtime. Launch, continue,
 * interrupt, request and resolve approvals, the three queries, `session_status_changed` after
 * commit, the activity monitor on the runtime's log channel, the orphan sweep on start (the
 * registry's `recover` hook, run by the runtime) and a graceful shutdown.
 *
 * Every operation is one event through the runtime, so it is validated by the machine, committed
 * atomically and audited (time, actor, reason). Each carries an idempotency key derived from what
 * it asks (the approval and decision, "interrupt"), so a duplicate request returns the first
 * result and changes nothing, while a conflicting one (deny after approve) is refused.
 */
import { appendFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import {
  childSessionInput,
  parseSessionInput,
  SESSION_ERRORS,
  sessionDecisionsPath,
  session,
  sessionRecord,
  SessionTransitionError,
  type SessionStatus,
  type SessionRecord,
} from '../../machines/session/index.js';
import { createAgentProcess } from '../actors/agent-process.js';
import { signalGroup } from '../os/process-identity.js';
import { makePrivateDirSync, PRIVATE_FILE_MODE, tightenPrivate } from '../os/private-files.js';
import { InvalidTransitionError } from '../graph/invalid-transition-error.js';
import { RunExistsError } from '../runtime/errors.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import type { CommittedStep, RunSnapshot } from '../runtime/run-snapshot.js';
import type { LifecycleWiring, StartInput } from '../runtime/lifecycle-wiring.js';
import type { Runtime } from '../runtime/runtime.js';
import { startActivityMonitor, type ActivityMonitor } from './activity-monitor.js';
import { allAgentsGone, isAgentRunning, type SessionAgentProcess } from './agent-exit.js';
import { approvalOf, approvalRequestEvent } from './approval-request.js';
import { DEFAULT_INTERRUPT_GRACE_MS, interruptNow, interruptOnExit } from './interrupt-on-exit.js';
import { permissionPromptEnv, withPermissionPrompt, type PermissionPrompt } from './permission-prompt.js';
import { DEFAULT_PARENT_EXIT_TIMEOUT_MS, parentAgentExited, parentSession } from './continue-parent.js';
import { asSessionRun, listActiveSessions, listSessionsAwaitingInput, listTerminalSessions } from './queries.js';
import { sessionStartInput } from './session-start-input.js';
import { sessionStatusChanged, type SessionStatusChanged } from './status-changed.js';
import { approvalRefusal } from './approval-refusal.js';
import type { RequestOptions, SessionDaemon } from './session-daemon-api.js';

export {
  ApprovalNotPendingError,
  type ApprovalRequest,
  type ContinueOptions,
  type LaunchOptions,
  type RequestOptions,
  type SessionDaemon,
} from './session-daemon-api.js';

export interface SessionLifecycleOptions {
  /** Where each session's raw stream is kept: `<logDir>/<session id>.jsonl`. */
  logDir: string;
  /** The agent process actor (default `agentProcess`: runs each session's `config.command`, `claude` unless set). */
  agent?: ActorFactory;
  /** The activity monitor (default: warn after 5 minutes of silence, checking every 30 s); `false` turns it off. */
  activity?: { inactivityLimitMs: number; intervalMs?: number; repeat?: boolean } | false;
  /**
   * The permission prompt every session gets unless its config names its own (permission-prompt.ts):
   * `statewright serve` gives its own `statewright mcp`. None: sessions run with what their config says.
   */
  permissionPrompt?: PermissionPrompt;
  /**
   * How long `interrupt` (and `close`, within its timeout) lets an agent take to exit on its SIGINT,
   * the session failing on that exit with the cost it reported, before INTERRUPT fails the session
   * without it (default 3 s).
   */
  interruptGraceMs?: number;
}

export const DEFAULT_INACTIVITY_LIMIT_MS = 5 * 60_000;

/**
 * The session lifecycle: its agent actor for `createRuntime({ actors })`, and the daemon attached
 * to that runtime. The runtime's recovery fails the sessions a dead daemon left active ("Session
 * orphaned due to daemon restart"); attaching stops the agents those sessions left running.
 */
export function sessionLifecycle(
  options: SessionLifecycleOptions,
): LifecycleWiring<SessionDaemon> & { readonly startInput: StartInput } {
  return {
    startInput: sessionStartInput(options.logDir),
    actors: {
      session: {
        agent:
          options.agent ??
          createAgentProcess({ env: (run) => permissionPromptEnv(run.runId, options.permissionPrompt) }),
      },
    },
    attach: (runtime) => attachSessionDaemon(runtime, options),
  };
}

async function attachSessionDaemon(runtime: Runtime, options: SessionLifecycleOptions): Promise<SessionDaemon> {
  const logDir = resolve(options.logDir);
  makePrivateDirSync(logDir);
  tightenPrivate('the session transcripts folder', [logDir]);
  const startInput = sessionStartInput(logDir);
  const statusListeners = new Set<(change: SessionStatusChanged) => void>();

  // The orphan sweep is committed first: like hld, the daemon does not announce it as status
  // changes (listeners cannot have subscribed yet anyway), so it is always or never published.
  await runtime.flush();
  await stopOrphanedAgents(
    runtime,
    runtime.restoredAtStart.filter((run) => run.machine === 'session'),
  );
  const unsubscribe = runtime.subscribe((step) => afterCommit(runtime, step, statusListeners));

  let monitor: ActivityMonitor | undefined;
  if (options.activity !== false) {
    const activity = options.activity ?? { inactivityLimitMs: DEFAULT_INACTIVITY_LIMIT_MS };
    monitor = startActivityMonitor({
      clock: runtime.clock,
      sessions: async () => (await runtime.listByIndex('session', 'active_by_activity')).map(asSessionRun),
      inactivityLimitMs: activity.inactivityLimitMs,
      ...(activity.intervalMs !== undefined && { intervalMs: activity.intervalMs }),
      ...(activity.repeat !== undefined && { repeat: activity.repeat }),
      warn: (w) =>
        runtime.log(w.session_id, 'warn', w.message, {
          status: w.status,
          last_activity_at: w.last_activity_at,
          inactive_ms: w.inactive_ms,
        }),
      onError: (error) => runtime.log('', 'error', `activity check failed: ${(error as Error).message}`),
    });
  }

  const record = (snapshot: RunSnapshot) => sessionRecord(asSessionRun(snapshot));
  const send = async (
    sessionId: string,
    event: { type: string; [k: string]: unknown },
    key: string,
    o: RequestOptions,
    reason: string,
  ) =>
    record(
      await runtime.dispatch(sessionId, event, {
        actor: o.actor ?? 'user',
        reason: o.reason ?? reason,
        idempotencyKey: o.idempotencyKey ?? key,
      }),
    );

  async function launchWith(id: string, input: unknown): Promise<SessionRecord> {
    try {
      return record(await runtime.start('session', { id, input }));
    } catch (error) {
      if (!(error instanceof RunExistsError)) throw error;
      // A repeated launch (same id, same request) is answered with the session it made.
      const existing = record(await runtime.getSnapshot(id));
      const asked = input as { query: string; parent_session_id?: string };
      if (existing.query === asked.query && existing.parent_session_id === (asked.parent_session_id ?? null))
        return existing;
      throw error;
    }
  }

  const resolveApproval =
    (decision: 'approved' | 'denied' | 'responded') =>
    async (
      sessionId: string,
      approvalId: string,
      o: RequestOptions & { comment?: string } = {},
    ): Promise<SessionRecord> => {
      try {
        return await send(
          sessionId,
          {
            type: 'APPROVAL_RESOLVED',
            approval_id: approvalId,
            decision,
            ...(o.comment !== undefined && { comment: o.comment }),
          },
          // The comment is part of the request: the same decision with another response is not a repeat.
          `approval-resolved:${approvalId}:${decision}${o.comment === undefined ? '' : `:${createHash('sha256').update(o.comment).digest('hex').slice(0, 16)}`}`,
          o,
          `approval ${approvalId} ${decision}`,
        );
      } catch (error) {
        // The machine says "not in this state" or "not pending"; say which approval and why.
        throw await approvalRefusal(
          runtime,
          sessionId,
          { type: 'APPROVAL_RESOLVED', approval_id: approvalId, decision },
          error,
        );
      }
    };

  /**
   * A request the session's status does not allow fails with the seed's words ("Invalid
   * transition: starting → waiting_input", "Cannot transition from terminal state: completed").
   */
  async function inSeedTerms(
    sessionId: string,
    target: SessionStatus,
    request: () => Promise<SessionRecord>,
  ): Promise<SessionRecord> {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof InvalidTransitionError) || error instanceof SessionTransitionError) throw error;
      const { status } = record(await runtime.getSnapshot(sessionId));
      session.validateTransition(status, target);
      throw error;
    }
  }

  let closed: Promise<void> | undefined;

  return {
    runtime,
    launch({ query, config, id = randomUUID() }) {
      const filled = options.permissionPrompt ? withPermissionPrompt(config, options.permissionPrompt) : config;
      const input = parseSessionInput(
        startInput({ query, ...(filled && { config: filled }) }, { runId: id, now: runtime.clock.now() }),
      );
      return launchWith(id, input);
    },
    async continue(
      parentId,
      { query, config, id = randomUUID(), parentExitTimeoutMs = DEFAULT_PARENT_EXIT_TIMEOUT_MS },
    ) {
      const parent = await parentSession(runtime, parentId);
      // Its created_at and log_path as every session's: the host's now, and the log beside the others.
      const { created_at, log_path } = startInput({}, { runId: id, now: runtime.clock.now() }) as {
        created_at: number;
        log_path: string;
      };
      const child = childSessionInput(parent, { query, created_at, log_path, ...(config && { config }) });
      // The parent's prompt may name a host that has gone since: this one's.
      const prompt = options.permissionPrompt;
      const input = prompt ? { ...child, config: withPermissionPrompt(child.config, prompt) } : child;
      await parentAgentExited(runtime, parent, parentExitTimeoutMs);
      return launchWith(id, input);
    },
    interrupt(sessionId, o = {}) {
      return inSeedTerms(sessionId, 'failed', async () => {
        // SIGINT first, the agent's exit failing the session: the cost Claude reports on its way out is kept.
        const onExit = await interruptOnExit(runtime, sessionId, {
          ...(o.reason && { reason: o.reason }),
          actor: o.actor ?? 'user',
          idempotencyKey: `${o.idempotencyKey ?? 'interrupt'}:requested`,
          graceMs: options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS,
        });
        if (onExit) return onExit;
        return record(
          await interruptNow(
            runtime,
            sessionId,
            { type: 'INTERRUPT', ...(o.reason && { reason: o.reason }) },
            {
              actor: o.actor ?? 'user',
              reason: o.reason ?? 'interrupt requested',
              idempotencyKey: o.idempotencyKey ?? 'interrupt',
            },
          ),
        );
      });
    },
    async requestApproval(sessionId, request, o = {}) {
      const asked = approvalRequestEvent(request);
      const session = await inSeedTerms(sessionId, 'waiting_input', () =>
        send(sessionId, asked.event, asked.idempotencyKey, o, asked.reason),
      );
      // A repeated request returns the first result: find the approval made for this tool call.
      return { session, approval: approvalOf(session.approvals, asked)! };
    },
    approve: resolveApproval('approved'),
    deny: resolveApproval('denied'),
    respond: (sessionId, approvalId, response, o = {}) =>
      resolveApproval('responded')(sessionId, approvalId, { ...o, comment: response }),
    async get(sessionId) {
      return record(await runtime.getSnapshot(sessionId));
    },
    history: (sessionId) => runtime.history(sessionId),
    activeSessions: (o) => listActiveSessions(runtime, o),
    terminalSessions: (o) => listTerminalSessions(runtime, o),
    sessionsAwaitingInput: (o) => listSessionsAwaitingInput(runtime, o),
    onStatusChanged(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    close(o = {}) {
      closed ??= (async () => {
        monitor?.stop();
        if (!o.handOver)
          await shutdown(runtime, o.timeoutMs ?? 10_000, options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS);
        unsubscribe();
      })();
      return closed;
    },
  };
}

/** What follows a committed step: the status change event, and an approval decision for the agent. */
function afterCommit(
  runtime: Runtime,
  step: CommittedStep,
  listeners: Set<(change: SessionStatusChanged) => void>,
): void {
  if (step.machine !== 'session' || step.before === undefined) return;
  if (step.event?.type === 'APPROVAL_RESOLVED') {
    const { approval_id, decision, comment } = step.event as unknown as {
      approval_id: string;
      decision: string;
      comment?: string;
    };
    const path = sessionDecisionsPath(step.snapshot.context.log_path);
    try {
      makePrivateDirSync(dirname(path));
      appendFileSync(path, `${JSON.stringify({ approval_id, decision, comment: comment ?? null })}\n`, {
        mode: PRIVATE_FILE_MODE,
      });
    } catch (error) {
      runtime.log(
        step.runId,
        'error',
        `could not hand decision ${decision} on ${approval_id} to the agent: ${(error as Error).message}`,
        { path },
      );
    }
  }
  const change = sessionStatusChanged(step.runId, { value: step.before }, { value: step.after });
  if (!change) return;
  for (const listener of listeners) {
    try {
      listener(change);
    } catch (error) {
      runtime.log(step.runId, 'error', `a session_status_changed listener threw: ${(error as Error).message}`);
    }
  }
}

/**
 * hld's StopAllSessions: interrupt every active session hosted here as `interrupt` does (SIGINT
 * first, the session failed by its agent's exit with the cost Claude reports on its way out;
 * INTERRUPT for an agent not gone within the grace), wait for the agents, kill the rest, all
 * within `timeoutMs`.
 */
async function shutdown(runtime: Runtime, timeoutMs: number, interruptGraceMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Sessions another live daemon hosts on the same store are its business.
  const hosted = (await runtime.listByIndex('session', 'active_by_activity'))
    .filter((run) => run.owner?.id === runtime.owner.id)
    .map((run) => sessionRecord(asSessionRun(run)));
  // The grace is the shutdown's too: what is left of the timeout after it is for the agents to exit.
  const graceMs = Math.min(interruptGraceMs, timeoutMs);
  await Promise.allSettled(
    hosted.map(async (s) => {
      const onExit =
        graceMs > 0 &&
        (await interruptOnExit(runtime, s.session_id, {
          reason: 'daemon shutdown',
          actor: 'daemon',
          idempotencyKey: 'interrupt:requested',
          graceMs,
          auditReason: 'graceful shutdown: SIGINT to the agent',
        }));
      if (onExit) return;
      await interruptNow(
        runtime,
        s.session_id,
        { type: 'INTERRUPT', reason: 'daemon shutdown' },
        { actor: 'daemon', reason: 'graceful shutdown', idempotencyKey: 'interrupt' },
      );
    }),
  );
  const agents = hosted.flatMap((s) => (s.agent ? [s.agent] : []));
  if (await allAgentsGone(agents, Math.max(0, deadline - Date.now()))) return;
  for (const a of agents.filter(isAgentRunning)) {
    runtime.log(
      '',
      'warn',
      `agent ${a.pid} still running ${timeoutMs} ms after the shutdown interrupt: killing its process group`,
    );
    signalGroup(a.pid, 'SIGKILL');
  }
  await allAgentsGone(agents, 1_000);
}

/**
 * An agent whose daemon died keeps running in its own process group, working for nobody. Once the
 * sweep has failed its session, it is stopped: SIGTERM to its group, SIGKILL if it outlives the grace.
 */
async function stopOrphanedAgents(
  runtime: Runtime,
  restored: ReadonlyArray<{ runId: string }>,
  graceMs = 5_000,
): Promise<void> {
  const stopped: SessionAgentProcess[] = [];
  for (const { runId } of restored) {
    const session = await runtime.getSnapshot(runId);
    const agent = (session.context as SessionRecord).agent;
    if (
      session.value !== 'failed' ||
      session.context.error_message !== SESSION_ERRORS.orphaned ||
      !agent ||
      !isAgentRunning(agent)
    )
      continue;
    runtime.log(runId, 'warn', `stopping agent ${agent.pid}, left running by the daemon that orphaned this session`, {
      pid: agent.pid,
    });
    signalGroup(agent.pid, 'SIGTERM');
    stopped.push(agent);
  }
  if (await allAgentsGone(stopped, graceMs)) return;
  for (const agent of stopped.filter(isAgentRunning)) signalGroup(agent.pid, 'SIGKILL');
  await allAgentsGone(stopped, 1_000);
}
