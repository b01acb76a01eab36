/**
 * The loop's `startAgents` actor: the seed's init -> working ("agents started successfully") or
 * init -> failed ("agent failed to start"). Each agent is a new process per iteration, so what is
 * checked here is that every configured agent can be started at all (its program resolves to an
 * executable file, its working directory exists) before any work is done: a reviewer that cannot
 * start fails the run at once, not after the primary's first iteration.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { fromCallback, type EventObject } from 'xstate';
import type { ReviewLoopEvent } from '../../machines/review-loop/index.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import type { AgentSettings, LoopSettings } from './settings.js';

/** Why `agent` cannot be started, or undefined when it can. */
export async function agentStartProblem(
  role: string,
  agent: AgentSettings,
  baseDir = process.cwd(),
): Promise<string | undefined> {
  const cwd = resolve(baseDir, agent.cwd ?? '.');
  const dir = await stat(cwd).catch(() => undefined);
  if (!dir?.isDirectory()) return `${role} agent's working directory ${cwd} does not exist or is not a directory`;
  const program = agent.command[0]!;
  if (program.includes('/')) {
    const path = isAbsolute(program) ? program : resolve(cwd, program);
    return (await executable(path)) ? undefined : `${role} agent's program ${path} is not an executable file`;
  }
  const searchPath = agent.env?.PATH ?? process.env.PATH ?? '';
  for (const dirName of searchPath.split(delimiter).filter(Boolean)) {
    if (await executable(join(resolve(cwd, dirName), program))) return undefined;
  }
  return `${role} agent's program '${program}' was not found on PATH`;
}

async function executable(path: string): Promise<boolean> {
  const file = await stat(path).catch(() => undefined);
  if (!file?.isFile()) return false;
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** Where the settings come from when they must be loaded first (a runner reads them from the loop's manifest). */
export type SettingsSource = () => Promise<{ settings: LoopSettings; baseDir?: string }>;

/** The actor for a loop with `settings`: checks every agent, then reports AGENTS_STARTED or AGENT_START_FAILED. */
export function startAgents(settings: LoopSettings | SettingsSource, baseDir?: string): ActorFactory {
  const load: SettingsSource =
    typeof settings === 'function' ? settings : async () => ({ settings, ...(baseDir !== undefined && { baseDir }) });
  return (run) =>
    fromCallback<EventObject>(() => {
      let stopped = false;
      let count = 0;
      load()
        .then(({ settings: loaded, baseDir: base }) => {
          const agents = [
            ['primary', loaded.primary],
            ...(loaded.reviewer ? [['reviewer', loaded.reviewer] as const] : []),
          ] as const;
          count = agents.length;
          return Promise.all(agents.map(([role, agent]) => agentStartProblem(role, agent, base)));
        })
        .then(
          (problems) => {
            if (stopped) return;
            const found = problems.filter((p): p is string => p !== undefined);
            const event: ReviewLoopEvent = found.length
              ? { type: 'AGENT_START_FAILED', error: found.join('; ') }
              : { type: 'AGENTS_STARTED' };
            run.send(event, {
              actor: 'startAgents',
              reason: found.length ? 'an agent cannot start' : `${count} agent(s) can start`,
              idempotencyKey: `${run.runId}:startAgents`,
              ifAccepted: true,
            });
          },
          (error: unknown) => {
            const event: ReviewLoopEvent = {
              type: 'AGENT_START_FAILED',
              error: `checking the agents failed: ${String(error)}`,
            };
            if (!stopped) run.send(event, { actor: 'startAgents', ifAccepted: true });
          },
        );
      return () => {
        stopped = true;
      };
    });
}
