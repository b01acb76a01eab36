/**
 * The task project as the CLI's `statewright task` and `statewright mcp --task` both work on it:
 * its session opened in this process for one action (the store opened, STATE.json written after
 * the last commit), the claim an action takes where the role has a seat, the check run here, and
 * the task shown as a few lines.
 */
import {
  lifecycles,
  LeaseError,
  RoleError,
  taskMachine,
  taskView,
  type AgentId,
  type TaskContext,
} from '../../machines/index.js';
import { InvalidTransitionError } from '../graph/index.js';
import { createRuntime } from '../runtime/index.js';
import type { RunSnapshot } from '../runtime/run-snapshot.js';
import { taskOfPersisted } from '../task/state-writer.js';
import { openTaskStore, taskLifecycle, type TaskSession } from '../task/task-service.js';

const RUNNING = 'Active.Working.Checking.Running';

/**
 * Opens the session of the project in `dir`, runs `body`, closes it. `runsChecks`: this process
 * runs the checks; `recover`: it takes over what a dead process left (a check cut off).
 */
export async function withTaskSession<T>(
  dir: string,
  options: { runsChecks?: boolean; recover?: boolean },
  body: (session: TaskSession) => Promise<T>,
): Promise<T> {
  const tasks = taskLifecycle({ dir, ...(options.runsChecks && { runsChecks: true }) });
  const store = await openTaskStore(dir);
  try {
    const runtime = await createRuntime({
      store,
      machines: lifecycles,
      actors: tasks.actors,
      recover: options.recover ?? false,
    });
    try {
      const session = await tasks.attach(runtime);
      try {
        return await body(session);
      } finally {
        await session.close();
      }
    } finally {
      await runtime.close();
    }
  } finally {
    await store.close();
  }
}

/** Claims the task, runs the checks here and waits for their result, heartbeating meanwhile. */
export async function runCheck(session: TaskSession, agent: AgentId) {
  await session.current();
  await claimIfSeated(session, agent);
  await session.send(agent, { type: 'check' }, 'task check on the command line');
  return session.holdingLease(agent, async (signal) => {
    const done = await session.waitFor((task) => task.state !== RUNNING, {
      timeoutMs: Number.POSITIVE_INFINITY,
      signal,
    });
    return done ?? session.current();
  });
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
  return describeTaskOf(taskOfPersisted(run.snapshot));
}

/** The same, for the task as serve's API shows it (its state value and context; no history states). */
export function describeTaskJson(run: { readonly value: unknown; readonly context: unknown }): string {
  const snapshot = taskMachine.resolveState({ value: run.value as never, context: run.context as TaskContext });
  return describeTaskOf({ view: taskView(snapshot), context: snapshot.context });
}

function describeTaskOf({ view, context }: ReturnType<typeof taskOfPersisted>): string {
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
