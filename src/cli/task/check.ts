import type { AgentId } from '../../../machines/index.js';
import type { TaskSession } from '../../task/task-service.js';
import { claimIfSeated, describeTask, requireAgent, withSession, type TaskArgs } from './options.js';

const RUNNING = 'Active.Working.Checking.Running';

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

export async function runCheck(session: TaskSession, agent: AgentId) {
  await session.current();
  await claimIfSeated(session, agent);
  await session.send(agent, { type: 'check' }, 'task check on the command line');
  return session.holdingLease(agent, async (signal) => {
    const done = await session.waitFor((task) => task.state !== RUNNING, {
      timeoutMs: Number.POSITIVE_INFINITY,
      signal,
    });
    return done ?? session.current();
  });
}
