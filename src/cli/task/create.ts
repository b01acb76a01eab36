import { describeTask } from '../../client/task-session.js';
import { requireAgent, requireText, withSession, type TaskArgs } from './options.js';

/** `task create "<task>" --as supervisor:...`: starts the project's task run if new, then create_task. */
export async function createAction(args: TaskArgs): Promise<number> {
  const agent = requireAgent(args, 'create', 'supervisor:claude:1');
  const task = requireText(args, 'create', 'task');
  const run = await withSession(args, {}, async (session) => {
    await session.ensureRun();
    return session.send(agent, { type: 'create_task', task }, 'task create on the command line');
  });
  process.stdout.write(describeTask(run));
  return 0;
}
