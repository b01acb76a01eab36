import { UsageError } from './usage-error.js';

/**
 * Parses JSON a person gave the command, or throws a UsageError naming `what` was not valid and
 * how to fix it. `shown` is the text to quote back (an argument); a file's or stdin's is not quoted.
 */
export function parseJson(text: string, what: string, fix: string, shown?: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${what} is not valid JSON (${(error as Error).message})${shown === undefined ? '' : `: ${shown}`}. ${fix}`,
    );
  }
}
