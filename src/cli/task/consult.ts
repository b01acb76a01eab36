import type { AgentId } from '../../../machines/index.js';
import type { RunSnapshot } from '../../runtime/run-snapshot.js';
import type { TaskSession } from '../../task/task-service.js';
import { claimIfSeated, describeTask } from '../../client/task-session.js';
import { requireAgent, requireText, withSession, type TaskArgs } from './options.js';

const ASKED = 'Active.Consultation.Asked';
const ANSWERED = 'Active.Consultation.Answered';

/** Exit code when the wait ran out before the response came: call resume to wait again. */
export const STILL_WAITING = 3;

/**
 * `task consult "<question>" --as executor:...`: asks the supervisor, then waits (heartbeating)
 * up to `[limits] wait_timeout_secs` for the response and returns to the paused state with it.
 */
export async function consultAction(args: TaskArgs): Promise<number> {
  const agent = requireAgent(args, 'consult', 'executor:codex:1');
  const question = requireText(args, 'consult', 'question');
  return withSession(args, {}, async (session) => {
    await session.current();
    await claimIfSeated(session, agent);
    const asked = await session.send(agent, { type: 'consult', question }, 'task consult on the command line');
    if (!args.wait) {
      process.stdout.write(describeTask(asked));
      return 0;
    }
    return awaitResponse(session, agent);
  });
}

/** Waits for the supervisor's response (as ferrus's wait_for_consult does), then resumes work with it. */
export async function awaitResponse(session: TaskSession, agent: AgentId): Promise<number> {
  const timeoutMs = session.settings.limits.waitTimeoutSecs * 1000;
  const answered = await session.holdingLease(agent, (signal) =>
    session.waitFor((task) => task.state !== ASKED, { timeoutMs, signal }),
  );
  if (!answered) {
    process.stdout.write(describeTask(await session.current()));
    process.stderr.write(
      `statewright: no response from the supervisor within ${session.settings.limits.waitTimeoutSecs}s. Wait again with: statewright task resume --as ${agent}\n`,
    );
    return STILL_WAITING;
  }
  if (answered.state !== ANSWERED) {
    process.stdout.write(describeTask(answered)); // left Consultation otherwise (a question for a person)
    return 0;
  }
  const response = (answered.context as { consultResponse?: string }).consultResponse;
  const resumed: RunSnapshot = await session.send(agent, { type: 'wait_for_consult' }, 'the response is in');
  process.stdout.write(`response: ${response}\n${describeTask(resumed)}`);
  return 0;
}
