/** The task lifecycle's API (`statewright/task`): a ferrus project's task on a runtime, its settings and STATE.json. */
export {
  taskLifecycle,
  openTaskStore,
  TaskSession,
  NoTaskError,
  taskPaths,
  taskInput,
  TASK_RUN_ID,
  type TaskLifecycleOptions,
  type TaskPaths,
} from './task-service.js';
export {
  readTaskSettings,
  parseTaskSettings,
  TaskConfigError,
  DEFAULT_TASK_SETTINGS,
  type TaskSettings,
} from './limits.js';
export { readStateFile, type StateFile } from './state-file.js';
export { checkRunner, type CheckRunnerOptions } from './check-runner.js';
