/** `statewright task <action>`: the ferrus task lifecycle on the command line (actions in ../task/). */
import { Command, Option } from 'commander';
import type { Cli } from '../command.js';
import { answerAction } from '../task/answer.js';
import { checkAction } from '../task/check.js';
import { consultAction } from '../task/consult.js';
import { createAction } from '../task/create.js';
import { credentialAction } from '../task/credential.js';
import { oneEventActions, runOneEvent } from '../task/one-event.js';
import { agentOption } from '../task/agent-option.js';
import { dirOption, taskArgs, type TaskArgs } from '../task/options.js';
import { resumeAction } from '../task/resume.js';
import { statusAction } from '../task/status.js';

interface Action {
  readonly summary: string;
  /** The name of the text argument the action takes, if any. */
  readonly text?: string | undefined;
  /** Whether an agent does it (`--as`); only `status` is nobody's. */
  readonly agent?: false;
  /** Its options beyond `--as` and `--dir`. */
  readonly options?: () => Option[];
  readonly run: (args: TaskArgs) => Promise<number>;
}

const actions: Record<string, Action> = {
  create: { summary: 'the supervisor creates a task', text: 'task', run: createAction },
  check: { summary: 'the executor runs the checks of ferrus.toml (exit 1 when they fail)', run: checkAction },
  consult: {
    summary: 'the executor asks the supervisor and waits for the response (exit 3 when the wait runs out)',
    text: 'question',
    options: () => [new Option('--no-wait', 'return once the question is asked')],
    run: consultAction,
  },
  answer: {
    summary: 'the supervisor responds to a consultation, or a person answers a question',
    text: 'answer',
    run: answerAction,
  },
  ...Object.fromEntries(
    Object.entries(oneEventActions).map(([name, spec]) => [
      name,
      { summary: spec.summary, text: spec.text, run: (args: TaskArgs) => runOneEvent(name, spec, args) },
    ]),
  ),
  resume: {
    summary: 'the executor continues from the persisted state (a consultation, an interrupted check)',
    run: resumeAction,
  },
  credential: {
    summary:
      "prints the agent's role credential from the running serve (for `statewright mcp --task` in STATEWRIGHT_TOKEN)",
    run: credentialAction,
  },
  status: {
    summary: 'shows the task',
    agent: false,
    options: () => [new Option('--json', 'print the task as STATE.json holds it (for the commit the store has)')],
    run: statusAction,
  },
};

function actionCommand(cli: Cli, name: string, action: Action): Command {
  const command = new Command(name).summary(action.summary);
  if (action.text) command.argument(`<${action.text}>`);
  if (action.agent !== false) command.addOption(agentOption());
  for (const option of action.options?.() ?? []) command.addOption(option);
  command.addOption(dirOption());
  return command.action(
    cli.exitsWith(async () => action.run(taskArgs(action.text ? command.processedArgs[0] : undefined, command.opts()))),
  );
}

export function taskCommand(cli: Cli): Command {
  const command = new Command('task')
    .summary('the ferrus task lifecycle: a supervisor, an executor, checks, reviews and leases')
    .description(
      'The ferrus task lifecycle: a supervisor hands a task to an executor, who works, runs the checks and submits; the supervisor approves or rejects. Every action works on the project folder --dir.',
    );
  for (const [name, action] of Object.entries(actions)) command.addCommand(actionCommand(cli, name, action));
  return command;
}
