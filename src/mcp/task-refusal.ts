/**
 * A task tool's refusal as the agent that called it reads it: the machine's reason, then what this
 * agent, in its role, can call now by tool name (the tools of `statewright mcp --task`, not the
 * machine's events: `answer`, not `respond_consult`), and no advice meant for another role (an
 * executor with no task is not told to run the supervisor's command).
 */
import type { TaskRole } from '../../machines/task/agent.js';
import { errorKind, StatewrightError, type ErrorKind } from '../errors.js';

/** A tool of a role, and the machine's events it sends (status sends none: it can always be called). */
export interface RoleTool {
  readonly name: string;
  readonly events: readonly string[];
}

export class TaskToolRefusedError extends StatewrightError {
  // The machine's own error name (RoleError, LeaseError, ...), as the agent would have read it.
  override readonly name: string;
  readonly kind: ErrorKind;
  constructor(name: string, kind: ErrorKind, message: string) {
    super(message);
    this.name = name;
    this.kind = kind;
  }
}

// The refusal's own words (src/graph/invalid-transition-error.ts), read from the message when it
// came through serve's API, whose error body does not carry the list.
const ACCEPTS = /; '([^']+)' accepts (.*?)(; it moves on its own: .*)?$/s;

/**
 * `error` written for `role`: a refused event names the tools it can call now, a missing task says
 * what this role does about it. Any other error is returned as it is.
 */
export function refusalFor(error: unknown, role: TaskRole, tools: readonly RoleTool[], dir: string): unknown {
  if (!(error instanceof Error)) return error;
  if (error.name === 'NoTaskError')
    return new TaskToolRefusedError(
      'NoTaskError',
      'not-found',
      role === 'supervisor'
        ? `No task in ${dir} yet: call create with what the executor is to do.`
        : `No task in ${dir} yet: the supervisor creates it. Call status to see whether it has, and go on from there.`,
    );
  const found = ACCEPTS.exec(error.message);
  if (!found) return error;
  const given = (error as { accepts?: readonly string[] }).accepts;
  const accepts = new Set(given ?? (found[2] === 'no events' ? [] : found[2]!.split(', ')));
  const callable = tools
    .filter((tool) => tool.events.length === 0 || tool.events.some((event) => accepts.has(event)))
    .map((tool) => tool.name);
  const reason = error.message.slice(0, found.index) + (found[3] ?? '');
  return new TaskToolRefusedError(
    error.name,
    errorKind(error),
    `${reason}. As ${role} you can call now: ${callable.join(', ')}.`,
  );
}
