/** What every `statewright task` action shares: its options, the agent identity, and how a task is shown. */
import { Option } from 'commander';
import type { AgentId } from '../../../machines/index.js';
import { withTaskSession } from '../../client/task-session.js';
import type { TaskSession } from '../../task/task-service.js';
import { UsageError } from '../usage-error.js';

export interface TaskArgs {
  readonly dir: string;
  readonly as: AgentId | undefined;
  readonly text: string | undefined;
  readonly wait: boolean;
  readonly json: boolean;
}

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
export const withSession = <T>(
  args: TaskArgs,
  options: { runsChecks?: boolean; recover?: boolean },
  body: (session: TaskSession) => Promise<T>,
): Promise<T> => withTaskSession(args.dir, options, body);
