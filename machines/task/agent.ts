/** Who works on a task: the roles, and an agent's identity `role:vendor:index` (ferrus's). */
import { z } from 'zod';

/** Who may send events: the two agents, a person, and the check runner reporting results. */
export const TASK_ROLES = ['supervisor', 'executor', 'human', 'checker'] as const;
export type TaskRole = (typeof TASK_ROLES)[number];

/** An agent's identity, `role:vendor:index` as in ferrus (`executor:codex:1`). */
export type AgentId = `${TaskRole}:${string}:${number}`;
export const agentIdSchema = z
  .string()
  .regex(
    /^(supervisor|executor|human|checker):[A-Za-z0-9_.-]+:[0-9]+$/,
    'expected role:vendor:index, e.g. executor:codex:1',
  ) as z.ZodType<AgentId>;

/** The role part of an agent id, or undefined when `agent` is not a well-formed id. */
export function roleOf(agent: unknown): TaskRole | undefined {
  return agentIdSchema.safeParse(agent).success ? ((agent as string).split(':')[0] as TaskRole) : undefined;
}
