import type { RunSnapshot } from '../../runtime/run-snapshot.js';
import { readStateFile, stateFileContent, type StateFile } from '../../task/state-file.js';
import { taskOfPersisted } from '../../task/state-writer.js';
import type { TaskSession } from '../../task/task-service.js';
import { describeTask } from '../../client/task-session.js';
import { withSession, type TaskArgs } from './options.js';

/** `task status [--json]`: the committed task (from the store; --json prints it as STATE.json holds it). Changes nothing. */
export async function statusAction(args: TaskArgs): Promise<number> {
  return withSession(args, {}, async (session) => {
    const task = await session.current();
    process.stdout.write(
      args.json ? `${JSON.stringify(await stateFileOf(session, task), null, 2)}\n` : describeTask(task),
    );
    return 0;
  });
}

/**
 * The committed task as STATE.json holds it: the file itself when it shows that commit, else (no
 * file yet, one left behind by a process that stopped before writing it, one that cannot be read)
 * what a writer puts there for it. The task shown is the store's either way, as without --json.
 */
async function stateFileOf(session: TaskSession, task: RunSnapshot): Promise<StateFile> {
  const file = await readStateFile(session.paths.stateFile).catch(() => undefined);
  if (file?.seq === task.seq) return file;
  const { view, context } = taskOfPersisted(task.snapshot);
  return stateFileContent(view, {
    now: task.updatedAt,
    seq: task.seq,
    ...(task.owner && { pid: task.owner.pid }),
    ...(context.lease && { lease: context.lease, leaseExpired: context.leaseExpired }),
  });
}
