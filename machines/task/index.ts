/**
 * The task lifecycle of ferrus: a supervisor hands a task to an executor, the executor works and
 * runs the checks, may consult the supervisor or ask a human, submits, and the supervisor approves
 * or rejects (seed: ferrus-state-machine.txt). What its users import, and its entry in the
 * registry. Every part is here: machine, context, events, guards, recover, explain, and beside
 * them config (input and limits), agent (roles and agent ids), lease, migrations and view (the
 * seed state and STATE.json).
 */
import type { Lifecycle } from '../lifecycle.js';
import { taskInputSchema } from './config.js';
import { taskPayloads } from './events.js';
import { explainTask } from './explain.js';
import { taskMachine } from './machine.js';
import { taskMigrations } from './migrations.js';
import { recoverTask } from './recover.js';
import { taskTesting } from './test-events.js';

export { task, taskMachine, type TaskSnapshot } from './machine.js';
export { TASK_ROLES, agentIdSchema, roleOf, type AgentId, type TaskRole } from './agent.js';
export {
  DEFAULT_LEASE_TTL_MS,
  DEFAULT_TASK_LIMITS,
  taskInputSchema,
  type TaskInput,
  type TaskLimits,
} from './config.js';
export type { TaskContext } from './context.js';
export {
  taskPayloads,
  type CheckRunInput,
  type LeaseExpiredEvent,
  type TaskEvent,
  type TaskEventMeta,
} from './events.js';
export { taskMigrations } from './migrations.js';
export { recoverTask } from './recover.js';
export {
  TASK_STATES,
  TASK_STEPS,
  pausedState,
  taskState,
  taskView,
  taskViewSchema,
  type TaskStateName,
  type TaskStep,
  type TaskView,
} from './view.js';
export { RoleError } from '../../src/graph/role-guard.js';
export * from './lease.js';

export const taskDefinition = {
  machine: taskMachine,
  version: 2,
  strict: true,
  migrations: taskMigrations,
  summary:
    'ferrus supervisor/executor task: checks, consultation, human questions, review, with retry and review budgets, leases',
  recover: recoverTask,
  explain: explainTask,
  input: taskInputSchema,
  events: Object.keys(taskPayloads),
  ...taskTesting,
} satisfies Lifecycle;
