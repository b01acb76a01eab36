/**
 * Runs on a running `statewright serve`, through its HTTP API (see run-access.ts): the host that
 * runs the agents and the timers. An event for a run another host on the store holds is sent on to
 * that host, as `statewright send` does. Calls go to the serve the location finds (serve-away.ts):
 * the one named, or the next one beside the store once that one went away.
 */
import { callHolder, callServer, runPath } from '../client/server-client.js';
import type { Explanation } from '../explain/explanation.js';
import type { RunJson } from '../serve/run-json.js';
import type { RunAccess } from './run-access.js';
import { whenServeAnswers, type ServerLocation } from './serve-away.js';
import { watchSteps } from './step-stream-client.js';

export function serverAccess(location: ServerLocation): RunAccess {
  const server = () => location.current();
  return {
    where: server().url,
    whileAway: (call, signal) => whenServeAnswers(location, call, signal),
    run: async (runId) => (await callServer<{ run: RunJson }>(server(), 'GET', runPath(runId))).run,
    explain: (runId) => callServer<Explanation>(server(), 'GET', `${runPath(runId)}/explain`),
    send: async (runId, event, options) =>
      (await callHolder<{ run: RunJson }>(server(), 'POST', `${runPath(runId)}/events`, { event, ...options })).run,
    watch: (runId, since, listener, onError) => watchSteps(location, runId, since, listener, onError),
    close: async () => {},
  };
}
