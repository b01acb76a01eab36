/**
 * The task lifecycle of ferrus: a supervisor hands a task to an executor, the executor works and
 * runs the checks, may consult the supervisor or ask a human, submits, and the supervisor approves
 * or rejects (seed: ferrus-state-machine.txt). Its machine, roles, leases, recovery and the view
 * people and agents read; the parts live in ./task/, one concept each.
 */
export { task, taskMachine, type TaskSnapshot } from './task/machine.js';
export { TASK_ROLES, agentIdSchema, roleOf, type AgentId, type TaskRole } from './task/agent.js';
export { DEFAULT_LEASE_TTL_MS, DEFAULT_TASK_LIMITS, taskInputSchema, type TaskInput, type TaskLimits } from './task/config.js';
export type { TaskContext } from './task/context.js';
export { taskPayloads, type CheckRunInput, type LeaseExpiredEvent, type TaskEvent, type TaskEventMeta } from './task/events.js';
export { taskMigrations } from './task/migrations.js';
export { recoverTask } from './task/recover.js';
export { TASK_STATES, TASK_STEPS, pausedState, taskState, taskView, taskViewSchema, type TaskStateName, type TaskStep, type TaskView } from './task/view.js';
export { RoleError } from '../src/graph/role-guard.js';
export * from './task/lease.js';
