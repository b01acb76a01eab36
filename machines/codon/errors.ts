import { StatewrightError } from '../../src/errors.js';

/**
 * Raised when an event that must stamp a time on the record (a terminal state's `endTime`, a new
 * codon's `startTime`) has no `at`. The runtime stamps every event; code driving the machine or the
 * run reducer directly must set `at` itself, since machines never read a clock.
 */
export class MissingTimestampError extends StatewrightError {
  readonly kind = 'invalid';
  override readonly name = 'MissingTimestampError';
  constructor(readonly eventType: string) {
    super(
      `Event '${eventType}' has no 'at' timestamp (ms since the epoch). The runtime stamps every event; when applying events directly, set 'at'.`,
    );
  }
}

/**
 * Raised when an event names a run or codon record that does not exist, or one that exists but may
 * not be created again (a run id already used, a codon that is still active).
 */
export class RecordReferenceError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'RecordReferenceError';
  constructor(
    readonly eventType: string,
    readonly runId: string,
    readonly codonId: string | undefined,
    detail: string,
  ) {
    super(`${eventType}: ${detail}`);
  }
}
