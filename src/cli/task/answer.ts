import { roleOf } from '../../../machines/index.js';
import { describeTask } from '../../client/task-session.js';
import { requireAgent, requireText, withSession, type TaskArgs } from './options.js';

/**
 * `task answer "<text>" --as ...`: the supervisor's response to a consultation (respond_consult),
 * or a person's answer to a question (answer). The role decides which; the machine refuses the rest.
 */
export async function answerAction(args: TaskArgs): Promise<number> {
  const agent = requireAgent(args, 'answer', 'human:me:1');
  const text = requireText(args, 'answer', 'answer');
  const run = await withSession(args, {}, async (session) => {
    await session.current();
    const event =
      roleOf(agent) === 'supervisor'
        ? ({ type: 'respond_consult', response: text } as const)
        : ({ type: 'answer', answer: text } as const);
    return session.send(agent, event, 'task answer on the command line');
  });
  process.stdout.write(describeTask(run));
  return 0;
}
