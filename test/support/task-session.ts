/** A task project's API wired as an app wires it: the project's store, a runtime with the task lifecycle's actors, the API attached. */
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Clock } from '../../src/runtime/index.js';
import { openTaskStore, taskLifecycle, type TaskSession } from '../../src/task/task-service.js';

export async function openTask(
  dir: string,
  options: { clock?: Clock; runsChecks?: boolean; recover?: boolean } = {},
): Promise<{ session: TaskSession; close(): Promise<void> }> {
  const store = await openTaskStore(dir);
  const tasks = taskLifecycle({ dir, ...(options.runsChecks && { runsChecks: true }) });
  const runtime = await createRuntime({
    store,
    machines: lifecycles,
    actors: tasks.actors,
    recover: options.recover ?? false,
    ...(options.clock && { clock: options.clock }),
  });
  const session = await tasks.attach(runtime);
  return {
    session,
    async close() {
      await session.close();
      await runtime.close();
      await store.close();
    },
  };
}
