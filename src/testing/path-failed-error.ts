import { StatewrightError } from '../errors.js';
import type { PathFailure, PathResult } from './drive-path.js';
import { failureText } from './failure-text.js';

/** A generated path on which statewright and plain XState parted, or a restored run differed, or the log did not replay. */
export class PathFailedError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'PathFailedError';
  readonly failure: PathFailure;
  constructor(
    readonly lifecycle: string,
    readonly result: PathResult,
  ) {
    super(failureText(lifecycle, result));
    this.failure = result.failure!;
  }
}
