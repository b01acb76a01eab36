/** `statewright task <action>`: the ferrus task lifecycle on the command line (actions in ../task/). */
import type { Command } from '../command.js';
import { answerAction } from '../task/answer.js';
import { checkAction } from '../task/check.js';
import { consultAction } from '../task/consult.js';
import { createAction } from '../task/create.js';
import { oneEventActions, runOneEvent } from '../task/one-event.js';
import { parseTaskArgs, type TaskArgs } from '../task/options.js';
import { resumeAction } from '../task/resume.js';
import { statusAction } from '../task/status.js';
import { UsageError } from '../usage-error.js';

const actions: Record<string, { summary: string; run: (args: TaskArgs) => Promise<number> }> = {
  create: { summary: 'the supervisor creates a task: create "<task>" --as supervisor:<vendor>:<n>', run: createAction },
  check: { summary: 'the executor runs the checks of ferrus.toml (exit 1 when they fail)', run: checkAction },
  consult: { summary: 'the executor asks the supervisor and waits for the response: consult "<question>" [--no-wait]', run: consultAction },
  answer: { summary: 'the supervisor responds to a consultation, or a person answers a question: answer "<text>"', run: answerAction },
  ...Object.fromEntries(Object.entries(oneEventActions).map(([name, spec]) => [name, { summary: spec.summary, run: (args: TaskArgs) => runOneEvent(name, spec, args) }])),
  resume: { summary: 'the executor continues from the persisted state (a consultation, an interrupted check)', run: resumeAction },
  status: { summary: 'shows the task (--json: STATE.json)', run: statusAction },
};

const usage = `Usage: statewright task <action> [text] --as role:vendor:index [--dir <project>]

The project folder (--dir, default .) holds ferrus.toml, STATE.json and the store .statewright/state.db.
Actions:
${Object.entries(actions)
  .map(([name, a]) => `  ${name.padEnd(10)} ${a.summary}`)
  .join('\n')}
`;

export const taskCommand: Command = {
  summary: 'the ferrus task lifecycle: task create|check|consult|answer|submit|approve|reject|reset|resume|status ... (see task help)',
  async run(args) {
    const [action, ...rest] = args;
    if (!action || action === 'help' || action === '--help') {
      process.stdout.write(usage);
      return action ? 0 : 2;
    }
    const found = Object.hasOwn(actions, action) ? actions[action] : undefined;
    if (!found) throw new UsageError(`Unknown task action '${action}'. Actions: ${Object.keys(actions).join(', ')}.`);
    return found.run(parseTaskArgs(action, rest));
  },
};
