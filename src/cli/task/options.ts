/** What every `statewright task` action shares: its options, the agent identity, and how a task is shown. */
import { InvalidArgumentError, Option } from 'commander';
import { agentIdSchema, lifecycles, LeaseError, RoleError, type AgentId } from '../../../machines/index.js';
import { InvalidTransitionError } from '../../graph/index.js';
import { taskOfPersisted } from '../../task/state-writer.js';
import { openTaskStore, taskLifecycle, type TaskSession } from '../../task/task-service.js';
import { withRuntime } from '../with-runtime.js';
import type { RunSnapshot } from '../../runtime/run-snapshot.js';
import { UsageError } from '../usage-error.js';

export interface TaskArgs {
  readonly dir: string;
  readonly as: AgentId | undefined;
  readonly text: string | undefined;
  readonly wait: boolean;
  readonly json: boolean;
}

const AGENT_ID = 'role:vendor:index with role supervisor, executor or human';

/** `--as`: the agent doing the action, checked as an agent id while the command line is parsed. */
export const agentOption = () =>
  new Option('--as <agent>', `the agent doing it: ${AGENT_ID}`).argParser((value): AgentId => {
    const parsed = agentIdSchema.safeParse(value);
    if (!parsed.success) throw new InvalidArgumentError(`Expected ${AGENT_ID}, e.g. --as executor:codex:1.`);
    return parsed.data;
  });

/** `--dir`, for every action. */
export const dirOption = () =>
  new Option(
    '--dir <project>',
    'the project folder: ferrus.toml, STATE.json and the store .statewright/state.db',
  ).default('.');

/** What commander parsed for an action (each takes the options it uses), as the actions read it. */
export function taskArgs(
  text: string | undefined,
  options: { dir: string; as?: AgentId; wait?: boolean; json?: boolean },
): TaskArgs {
  return { dir: options.dir, as: options.as, text, wait: options.wait ?? true, json: options.json ?? false };
}

export function requireAgent(args: TaskArgs, action: string, example: string): AgentId {
  if (!args.as)
    throw new UsageError(`task ${action} needs the agent doing it: --as role:vendor:index, e.g. --as ${example}`);
  return args.as;
}

export function requireText(args: TaskArgs, action: string, what: string): string {
  if (!args.text?.trim())
    throw new UsageError(`task ${action} needs ${what}: statewright task ${action} "<${what}>" --as ...`);
  return args.text;
}

/** Opens the project's session, runs `body`, closes it (STATE.json written for the last commit). */
export async function withSession<T>(
  args: TaskArgs,
  options: { runsChecks?: boolean; recover?: boolean },
  body: (session: TaskSession) => Promise<T>,
): Promise<T> {
  const tasks = taskLifecycle({ dir: args.dir, ...(options.runsChecks && { runsChecks: true }) });
  return withRuntime(
    () => openTaskStore(args.dir),
    lifecycles,
    async (runtime) => {
      const session = await tasks.attach(runtime);
      try {
        return await body(session);
      } finally {
        await session.close();
      }
    },
    { actors: tasks.actors, recover: options.recover ?? false },
  );
}

/**
 * Claims the task for `agent` where its role has a seat (the executor while it works, the
 * supervisor in review), as ferrus's wait_for_task does; a claim held by someone else stops the
 * command. Where the role has no seat the command goes on and the machine judges the action itself.
 */
export async function claimIfSeated(session: TaskSession, agent: AgentId): Promise<void> {
  try {
    await session.send(agent, { type: 'claim' }, 'claimed by the command line');
  } catch (error) {
    if (error instanceof LeaseError || !(error instanceof InvalidTransitionError)) throw error;
    if (!(error instanceof RoleError) && !/cannot apply event 'claim'/.test(error.message)) throw error;
  }
}

const STEP: Record<string, string> = {
  running: 'checks running',
  passed: 'checks passed',
  asked: 'waiting for the response',
  answered: 'response in',
};

/** The task as a few lines: its state, the text, and what the agents need next. */
export function describeTask(run: RunSnapshot): string {
  const { view, context } = taskOfPersisted(run.snapshot);
  const lines = [
    `task is ${view.state}${view.step ? ` (${STEP[view.step]})` : ''}${view.paused_state ? `, paused from ${view.paused_state}` : ''}`,
  ];
  const add = (label: string, value: string | undefined) =>
    value !== undefined && lines.push(`${label}: ${value.includes('\n') ? `\n${indent(value)}` : value}`);
  add('task', view.task);
  if (context.lease) {
    const until = new Date(context.lease.leaseUntil).toISOString();
    lines.push(
      `claimed by ${context.lease.claimedBy} ${context.leaseExpired ? `(lease expired at ${until})` : `until ${until}`}`,
    );
  }
  lines.push(
    `check retries ${view.check_retries}/${view.max_check_retries}, review cycles ${view.review_cycles}/${view.max_review_cycles}`,
  );
  add('failure', view.failure_reason);
  add('check feedback', view.check_feedback);
  add('review', view.review);
  add('submission', view.submission);
  add('consult question', view.consult_question);
  add('consult response', view.consult_response);
  add('question for a person', view.human_question);
  add('answer', view.human_answer);
  return `${lines.join('\n')}\n`;
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
