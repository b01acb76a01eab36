/** The exit code of a mistake in how the command was called, whether commander or a command found it. */
export const USAGE_EXIT_CODE = 2;

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
