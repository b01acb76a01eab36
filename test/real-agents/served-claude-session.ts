/**
 * A session on a real `statewright serve` whose agent is the real `claude`, answered by a scripted
 * model server of its own: what the approval tests (through the API, and through the live view)
 * share. The model server is closed and the agent's process group ended when the test finishes.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { endWithTest } from '../support/child-processes.js';
import { api, type ServeProcess } from '../support/serve-process.js';
import { until } from '../support/until.js';
import { ModelServer, type Reply } from './model-server/model-server.js';
import { CLAUDE_BIN, claudeEnv } from './real-agents.js';

/** The model asks to run `command` with Bash, then, told the outcome, finishes. */
export const bashThenFinish = (command: string): Reply[] => [
  { blocks: [{ tool: 'Bash', input: { command, description: 'write the file' } }] },
  { blocks: [{ text: 'Finished.' }] },
];

/** The run as the API shows it, once `wanted` holds of it. */
export function runWhen(serve: ServeProcess, id: string, wanted: (run: any) => boolean): Promise<any> {
  return until(
    `run ${id} to reach the state wanted`,
    async () => {
      const { body } = await api(serve.url, 'GET', `/api/runs/${encodeURIComponent(id)}`);
      return body.run && wanted(body.run) ? body.run : undefined;
    },
    60_000,
  );
}

/**
 * Starts session `id` on `serve`, its agent the real claude working in `<dir>/<id>` and answered by
 * `script` (with `config` added to the session's); resolves once the agent is spawned, with the model server and the working folder.
 */
export async function startClaudeSession(
  serve: ServeProcess,
  dir: string,
  id: string,
  script: Reply[],
  config: Record<string, unknown> = {},
) {
  const model = await ModelServer.start(script);
  onTestFinished(() => model.close());
  const work = join(dir, id);
  const home = join(dir, `${id}.home`);
  mkdirSync(work);
  mkdirSync(home);
  const started = await api(serve.url, 'POST', '/api/runs', {
    machine: 'session',
    id,
    input: {
      query: 'Write the file.',
      config: { command: [CLAUDE_BIN], working_dir: work, env: claudeEnv(model, { home }), ...config },
    },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const spawned = await runWhen(serve, id, (run) => run.context.agent !== undefined || run.status !== 'active');
  if (spawned.context.agent) endWithTest(spawned.context.agent.pid);
  return { model, work };
}
