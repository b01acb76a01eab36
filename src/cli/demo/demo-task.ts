import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { AgentId, TaskEvent } from '../../../machines/task/index.js';
import type { RunSnapshot } from '../../runtime/index.js';
import { TASK_RUN_ID, taskPaths, type TaskSession } from '../../task/index.js';
import type { DemoContext } from './demo-context.js';

const SUPERVISOR: AgentId = 'supervisor:stand-in:1';
const EXECUTOR: AgentId = 'executor:stand-in:1';
/** The states from which the demo starts the next task: the project's one task run has none open. */
const RESTING = ['Idle', 'Complete'];

/** The demo's ferrus project folder, with the check its executor must pass: made before serve reads it. */
export async function prepareTaskDir(dir: string): Promise<void> {
  const { settings } = taskPaths(dir);
  await mkdir(dir, { recursive: true });
  if (!existsSync(settings))
    await writeFile(
      settings,
      '# The demo task\'s check: what the executor must pass before it submits.\n[checks]\ncommands = ["test -d ."]\n',
    );
}

/**
 * ferrus's supervisor and executor as stand-ins on the project's one task run (`task`): the
 * supervisor creates a task, the executor claims it and runs the check (a real command from the
 * demo's ferrus.toml, run by serve's check runner), submits, and the supervisor approves. A task
 * left open last time is left to the agents that own it; each `npm start` adds one task at most.
 */
export async function driveTask(demo: DemoContext, tasks: TaskSession): Promise<void> {
  await tasks.ensureRun();
  const now = await tasks.current();
  if (!RESTING.includes(now.state))
    return demo.print(`task         picked up in ${now.state}: ${demo.hint('explain task')}`);
  demo.print('task         the supervisor and the executor (stand-ins) take the next task');
  const steps: Array<[AgentId, TaskEvent, string]> = [
    [SUPERVISOR, { type: 'create_task', task: 'Add a --json flag to status' }, 'plan'],
    [EXECUTOR, { type: 'claim' }, 'take the task'],
    [EXECUTOR, { type: 'check' }, 'run the checks'],
  ];
  for (const [agent, event, reason] of steps) {
    await demo.pause();
    if (demo.stopping()) return;
    await tasks.send(agent, event, reason);
  }
  const checked = await leftChecking(demo, tasks);
  if (checked?.state !== 'Active.Working.Checking.Passed') return;
  for (const [agent, event, reason] of [
    [EXECUTOR, { type: 'submit', summary: 'status --json prints the runs as JSON' }, 'done'],
    [SUPERVISOR, { type: 'approve' }, 'reviewed'],
  ] as Array<[AgentId, TaskEvent, string]>) {
    await demo.pause();
    if (demo.stopping()) return;
    await tasks.send(agent, event, reason);
  }
}

/** The task once the check runner has reported, or undefined when the demo stops first. */
async function leftChecking(demo: DemoContext, tasks: TaskSession): Promise<RunSnapshot | undefined> {
  let unsubscribe = () => {};
  let stopped = () => {};
  const reported = new Promise<void>((resolve) => {
    unsubscribe = demo.runtime.subscribe(
      (step) => step.runId === TASK_RUN_ID && step.after !== 'Active.Working.Checking.Running' && resolve(),
    );
    stopped = demo.onStop(resolve);
  });
  if ((await tasks.current()).state === 'Active.Working.Checking.Running') await reported;
  unsubscribe();
  stopped();
  return demo.stopping() ? undefined : tasks.current();
}
