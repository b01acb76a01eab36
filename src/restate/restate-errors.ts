/**
 * What can go wrong between statewright and a Restate server, each saying what to do about it.
 */
import { StatewrightError } from '../errors.js';

/** No answer from a Restate ingress or admin API within the time allowed (the server is down, or every node is). */
export class RestateUnreachableError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'RestateUnreachableError';
  constructor(
    readonly url: string,
    override readonly cause: unknown,
  ) {
    super(
      `No answer from Restate at ${url}: ${cause instanceof Error ? cause.message : String(cause)}. Check that the Restate server runs and that the URL names its ingress (default port 8080) or admin API (default port 9070).`,
    );
  }
}

/** Restate itself refused a call (not a run's refusal): a service not registered, a bad request, a failed handler. */
export class RestateCallError extends StatewrightError {
  readonly kind = 'unavailable';
  override readonly name = 'RestateCallError';
  constructor(
    readonly url: string,
    readonly status: number,
    detail: string,
  ) {
    super(
      `Restate answered ${status} to ${url}: ${detail.replace(/\.$/, '')}.${status === 404 ? ' Is a statewright worker registered with this Restate server (`statewright worker --restate-admin <url>`)?' : ''}`,
    );
  }
}

/** An endpoint set up so that it cannot work (actors given with no ingress to report through). */
export class RestateSetupError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'RestateSetupError';
  constructor(problem: string) {
    super(`Cannot host the lifecycles on Restate: ${problem}.`);
  }
}
