/** The running serve of a task project: where `task credential` and `mcp --task` with a role credential go. */
import type { ServerTarget } from '../../client/server-client.js';
import { StatewrightError } from '../../errors.js';
import { taskPaths } from '../../task/task-service.js';
import { findServer } from '../find-server.js';

/** The store spec of a task project (its `.statewright/state.db`): where its serve keeps its server file. */
export const taskStoreSpec = (dir: string): string => `sqlite:${taskPaths(dir).store}`;

/** No serve found for the project: `--server`/STATEWRIGHT_SERVER, else the server file beside its store. */
export class TaskServerMissingError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'TaskServerMissingError';
  constructor(readonly dir: string) {
    super(
      `No statewright serve found for the task project ${dir}: start one in the project folder (\`statewright serve --store ${taskStoreSpec(dir)}\`), ` +
        'or name it with --server <url> or STATEWRIGHT_SERVER.',
    );
  }
}

/** The serve of the project `dir`: the one named (`server`, STATEWRIGHT_SERVER), else the one whose server file is beside its store. */
export function taskServer(dir: string, values: { server?: string; token?: string } = {}): ServerTarget {
  const server = findServer({ ...values, store: taskStoreSpec(dir) });
  if (!server) throw new TaskServerMissingError(dir);
  return server;
}
