import { readStateFile } from '../../task/state-file.js';
import { describeTask, withSession, type TaskArgs } from './options.js';

/** `task status [--json]`: the committed task (from the store; --json prints STATE.json). Changes nothing. */
export async function statusAction(args: TaskArgs): Promise<number> {
  return withSession(args, {}, async (session) => {
    const task = await session.current();
    if (args.json) {
      const file = await readStateFile(session.paths.stateFile);
      process.stdout.write(`${JSON.stringify(file ?? null, null, 2)}\n`);
    } else {
      process.stdout.write(describeTask(task));
    }
    return 0;
  });
}
