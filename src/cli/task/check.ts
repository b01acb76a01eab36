import { describeTask, runCheck } from '../../client/task-session.js';
import { requireAgent, withSession, type TaskArgs } from './options.js';

/**
 * `task check --as executor:...`: claims the task, runs the check commands of ferrus.toml in this
 * process and waits for the result, heartbeating meanwhile. Exit 0 when they pass, 1 when not.
 */
export async function checkAction(args: TaskArgs): Promise<number> {
  const agent = requireAgent(args, 'check', 'executor:codex:1');
  // Recovery first: a check left running by a dead process is declared interrupted.
  const run = await withSession(args, { runsChecks: true, recover: true }, (session) => runCheck(session, agent));
  process.stdout.write(describeTask(run));
  return run.state === 'Active.Working.Checking.Passed' ? 0 : 1;
}
