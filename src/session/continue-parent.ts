/**
 * What the daemon checks of a parent before continuing it, beyond the pure rules of
 * `childSessionInput`: that it is a stored session (hld's "failed to get parent session"), and
 * that its agent has exited (hld interrupts a running parent, then waits for its Claude to exit
 * before resuming the conversation it may still be writing).
 */
import { ContinueSessionError, sessionRecord, type SessionRecord } from '../../machines/session/index.js';
import { UnknownRunError } from '../runtime/errors.js';
import type { Runtime } from '../runtime/runtime.js';
import { allAgentsGone, isAgentRunning } from './agent-exit.js';
import { asSessionRun } from './queries.js';

export const DEFAULT_PARENT_EXIT_TIMEOUT_MS = 10_000;

/** The parent's record; refused unless `parentId` names a session. */
export async function parentSession(runtime: Runtime, parentId: string): Promise<SessionRecord> {
  let run;
  try {
    run = await runtime.getSnapshot(parentId);
  } catch (error) {
    if (!(error instanceof UnknownRunError)) throw error;
    throw new ContinueSessionError(
      parentId,
      `Cannot continue session ${parentId}: there is no such session; check the id with terminalSessions() or activeSessions()`,
    );
  }
  if (run.machine !== 'session') {
    throw new ContinueSessionError(
      parentId,
      `Cannot continue session ${parentId}: it is a run of the ${run.machine} lifecycle, not a session; continue the id of a session`,
    );
  }
  return sessionRecord(asSessionRun(run));
}

/** Returns once the parent's agent is gone; refused if it still runs after `timeoutMs`. */
export async function parentAgentExited(runtime: Runtime, parent: SessionRecord, timeoutMs: number): Promise<void> {
  const agent = parent.agent;
  if (!agent || !isAgentRunning(agent)) return;
  runtime.log(
    parent.session_id,
    'info',
    `waiting for agent ${agent.pid} of session ${parent.session_id} to exit before continuing it`,
    { pid: agent.pid },
  );
  if (await allAgentsGone([agent], timeoutMs)) return;
  throw new ContinueSessionError(
    parent.session_id,
    `Cannot continue session ${parent.session_id} yet: its agent (pid ${agent.pid}) is still running after a wait of ${timeoutMs} ms, and may still be writing the conversation; continue once it has exited, or kill it first`,
  );
}
