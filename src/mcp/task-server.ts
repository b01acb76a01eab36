/**
 * A task project's run through a running `statewright serve`, with a task role's credential
 * (`sw-role.…`, src/serve/scoped-credential.ts) as the target's token: what `statewright mcp --task`
 * does instead of opening the project's store when it is given one (the CLI finds the serve,
 * src/cli/task/task-server.ts). serve holds the credential to its agent's events on this one task
 * run; the machine judges each event as ever.
 */
import { callHolder, callServer, runPath, type ServerTarget } from '../client/server-client.js';
import type { RunJson } from '../serve/run-json.js';
import { TASK_RUN_ID } from '../task/task-service.js';

/** The project's task run on a serve, as the credential's agent sees it. */
export interface TaskServer {
  current(): Promise<RunJson>;
  send(event: { type: string; agent: string; [field: string]: unknown }, reason: string): Promise<RunJson>;
  history(): Promise<ReadonlyArray<{ readonly event: unknown }>>;
}

export function taskServerAccess(server: ServerTarget): TaskServer {
  const path = runPath(TASK_RUN_ID);
  return {
    current: async () => (await callServer<{ run: RunJson }>(server, 'GET', path)).run,
    send: async (event, reason) =>
      (await callHolder<{ run: RunJson }>(server, 'POST', `${path}/events`, { event, actor: event.agent, reason })).run,
    history: async () =>
      (await callServer<{ events: Array<{ event: unknown }> }>(server, 'GET', `${path}/history`)).events,
  };
}
