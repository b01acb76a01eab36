/** statewright: a durable statechart runtime for agent and CI lifecycles. */
export * from './graph/index.js';
export * from './runtime/index.js';
export * from './stores/index.js';
export { TaskSession, NoTaskError, taskPaths, TASK_RUN_ID } from './task/session.js';
