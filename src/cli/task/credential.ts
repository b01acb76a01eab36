/**
 * `task credential --as <agent>`: the agent's role credential on the project's task run, from the
 * running serve (with the user's token, from the server file beside the store or STATEWRIGHT_TOKEN),
 * printed alone on stdout: what `statewright mcp --task <dir> --as <agent>` takes in STATEWRIGHT_TOKEN.
 */
import { taskServer } from './task-server.js';
import { TASK_RUN_ID } from '../../task/task-service.js';
import { callServer } from '../../client/server-client.js';
import { requireAgent, type TaskArgs } from './options.js';

export async function credentialAction(args: TaskArgs): Promise<number> {
  const agent = requireAgent(args, 'credential', 'executor:claude:1');
  const { credential } = await callServer<{ credential: string }>(taskServer(args.dir), 'POST', '/api/credentials', {
    run: TASK_RUN_ID,
    agent,
  });
  process.stdout.write(`${credential}\n`);
  return 0;
}
