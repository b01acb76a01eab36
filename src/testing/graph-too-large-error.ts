import { StatewrightError } from '../errors.js';

/** Path generation visited more states than its bound: a context that keeps growing (a counter, a list) makes the graph endless. */
export class GraphTooLargeError extends StatewrightError {
  readonly kind = 'setup';
  override readonly name = 'GraphTooLargeError';
  constructor(
    readonly lifecycle: string,
    readonly stateLimit: number,
  ) {
    super(
      `${lifecycle}: path generation visited more than ${stateLimit} states. The context probably keeps growing (a counter, a list, a timestamp): give the lifecycle a testContextKey that keeps only what decides which events a state takes, or raise the bound (--state-limit).`,
    );
  }
}
