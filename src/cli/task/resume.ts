import { roleOf } from '../../../machines/index.js';
import { TASK_RUN_ID } from '../../task/task-service.js';
import { runCheck } from '../../client/task-session.js';
import { awaitResponse } from './consult.js';
import { claimIfSeated, describeTask } from '../../client/task-session.js';
import { requireAgent, withSession, type TaskArgs } from './options.js';

/**
 * `task resume --as executor:...`: picks the task up where the persisted state left it, as ferrus's
 * /resume restarts an executor. A check interrupted by a dead process is declared so (recovery)
 * and runs again here; a consultation still waits for, or takes, its response; elsewhere the agent
 * claims the task and is shown what to do next. Exit codes as check and consult.
 */
export async function resumeAction(args: TaskArgs): Promise<number> {
  const agent = requireAgent(args, 'resume', 'executor:codex:1');
  return withSession(args, { runsChecks: true, recover: true }, async (session) => {
    const task = await session.current();
    const executor = roleOf(agent) === 'executor';
    if (executor && task.state === 'Active.Consultation.Asked') {
      await claimIfSeated(session, agent);
      return awaitResponse(session, agent);
    }
    if (executor && task.state === 'Active.Consultation.Answered') {
      await claimIfSeated(session, agent);
      const response = (task.context as { consultResponse?: string }).consultResponse;
      const resumed = await session.send(agent, { type: 'wait_for_consult' }, 'resumed with the response');
      process.stdout.write(`response: ${response}\n${describeTask(resumed)}`);
      return 0;
    }
    const last = (await session.runtime.history(TASK_RUN_ID)).at(-1)?.event as
      | { type: string; interrupted?: boolean }
      | undefined;
    if (executor && last?.type === 'check_failed' && last.interrupted) {
      // The last thing that happened is a check cut off by a dead process: run it again now.
      const run = await runCheck(session, agent);
      process.stdout.write(describeTask(run));
      return run.state === 'Active.Working.Checking.Passed' ? 0 : 1;
    }
    await claimIfSeated(session, agent);
    process.stdout.write(describeTask(await session.current()));
    return 0;
  });
}
