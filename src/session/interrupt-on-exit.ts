/**
 * An interrupt that keeps what the interrupted call cost. On SIGINT a real Claude (2.1.328) writes
 * a result with the cost of the call it aborted (`is_error`, `total_cost_usd`), then exits 0,
 * within milliseconds. INTERRUPT fails the session at once, so that result came after the session
 * had ended and was lost. So the daemon (its `interrupt`, and each session of its graceful
 * shutdown) first asks for the interrupt (INTERRUPT_REQUESTED: SIGINT to the agent, the session
 * still running) and lets the agent's exit fail the session, its result recorded; only an agent
 * that has not exited within the grace is failed by INTERRUPT, as before.
 */
import { DEFAULT_SESSION_INTERRUPT_GRACE_MS, sessionRecord, type SessionRecord } from '../../machines/session/index.js';
import { InvalidTransitionError } from '../graph/invalid-transition-error.js';
import { MetadataValidationError } from '../graph/metadata-guard.js';
import type { Runtime } from '../runtime/runtime.js';
import { isAgentRunning } from './agent-exit.js';
import { asSessionRun } from './queries.js';

/** How long an interrupted agent may take to exit on its SIGINT before INTERRUPT fails the session. */
export const DEFAULT_INTERRUPT_GRACE_MS = DEFAULT_SESSION_INTERRUPT_GRACE_MS;

/** How long the exit of an agent already gone may take to be committed before INTERRUPT is sent anyway. */
const EXIT_COMMIT_GRACE_MS = 5_000;

export interface InterruptRequest {
  reason?: string;
  actor: string;
  /** The key the INTERRUPT_REQUESTED event is sent with (a repeated interrupt changes nothing). */
  idempotencyKey: string;
  graceMs: number;
  /** Why, in the audit trail (default "interrupt requested: SIGINT to the agent"). */
  auditReason?: string;
}

/**
 * The session failed by its agent's exit after SIGINT, or undefined when that cannot be (no agent
 * running, not running or waiting for input) or did not happen within the grace: the caller then
 * sends INTERRUPT.
 */
export async function interruptOnExit(
  runtime: Runtime,
  sessionId: string,
  request: InterruptRequest,
): Promise<SessionRecord | undefined> {
  const now = sessionRecord(asSessionRun(await runtime.getSnapshot(sessionId)));
  // Interrupted already (a repeated request): the answer is the session it left.
  if (now.status === 'failed' && now.interrupt_requested) return now;
  if ((now.status !== 'running' && now.status !== 'waiting_input') || !now.agent || !isAgentRunning(now.agent))
    return undefined;
  let stop = () => {};
  let timer: NodeJS.Timeout | undefined;
  // Listening before the request: the agent may exit before the request's dispatch returns.
  const ended = new Promise<SessionRecord | undefined>((resolve) => {
    stop = runtime.subscribe((step) => {
      if (step.runId === sessionId && step.snapshot.status === 'done')
        resolve(sessionRecord(asSessionRun(step.snapshot)));
    });
    // An agent gone by the grace has its exit on the way to a commit (slow on a busy machine):
    // waited for, so the exit and what it reported are kept rather than overtaken by INTERRUPT.
    const agent = now.agent!;
    timer = setTimeout(() => {
      if (isAgentRunning(agent)) resolve(undefined);
      else timer = setTimeout(() => resolve(undefined), EXIT_COMMIT_GRACE_MS);
    }, request.graceMs);
  });
  try {
    const asked = await runtime.dispatch(
      sessionId,
      { type: 'INTERRUPT_REQUESTED', ...(request.reason && { reason: request.reason }) },
      {
        actor: request.actor,
        reason: request.auditReason ?? 'interrupt requested: SIGINT to the agent',
        idempotencyKey: request.idempotencyKey,
      },
    );
    if (asked.status === 'done') return sessionRecord(asSessionRun(asked));
    return await ended;
  } catch (error) {
    // Ended or moved on meanwhile: INTERRUPT says so in the seed's words, or fails what is left.
    if (error instanceof InvalidTransitionError || error instanceof MetadataValidationError) return undefined;
    throw error;
  } finally {
    stop();
    clearTimeout(timer);
  }
}

/**
 * INTERRUPT, failing the session now: a running session's first INTERRUPT only asks for the
 * interrupt (SIGINT and the machine's grace), so one still active after it gets a second, which
 * fails it at once. For an agent already gone or past the caller's own grace.
 */
export async function interruptNow(
  runtime: Runtime,
  sessionId: string,
  event: { type: 'INTERRUPT'; reason?: string },
  options: { actor: string; reason: string; idempotencyKey: string },
) {
  const asked = await runtime.dispatch(sessionId, event, options);
  if (asked.status !== 'active') return asked;
  return runtime.dispatch(sessionId, event, {
    ...options,
    reason: `${options.reason}: the grace is over`,
    idempotencyKey: `${options.idempotencyKey}:now`,
  });
}
