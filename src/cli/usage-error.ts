import { ERROR_KINDS, StatewrightError } from '../errors.js';

/** The exit code of a mistake in how the command was called, whether commander or a command found it. */
export const USAGE_EXIT_CODE = ERROR_KINDS.usage.exitCode;

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends StatewrightError {
  readonly kind = 'usage';
  override readonly name = 'UsageError';
}
