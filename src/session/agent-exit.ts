/**
 * Whether a session's agent process has exited: for the graceful shutdown, the orphan sweep and a
 * continue, which each wait for agents that end in real time, whatever clock the runtime runs on.
 */
import type { SessionRecord } from '../../machines/session/index.js';
import { isSameProcessAlive } from '../os/process-identity.js';

/** The agent process a session recorded: pid and start time name it on its host. */
export type SessionAgentProcess = NonNullable<SessionRecord['agent']>;

export const isAgentRunning = (agent: SessionAgentProcess) => isSameProcessAlive(agent.pid, agent.pid_start);

/** Waits until none of `agents` runs; false if some still run after `timeoutMs`. */
export async function allAgentsGone(agents: readonly SessionAgentProcess[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (agents.some(isAgentRunning)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
