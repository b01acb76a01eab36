import { StatewrightError } from '../errors.js';

/**
 * Raised when the current state does not accept an event. XState itself ignores such events;
 * statewright never does. Carries the state and event for programmatic handling, and, where the
 * refusal knows them, the events the state does accept, which the message lists too.
 */
export class InvalidTransitionError extends StatewrightError {
  readonly kind = 'conflict';
  // Widened to string so that refinements (RoleError) can name themselves.
  override readonly name: string = 'InvalidTransitionError';
  readonly state: string;
  readonly event: string;
  /** The event types the state accepts (given the right payload and sender), when known. */
  readonly accepts?: readonly string[];

  constructor(
    state: string,
    event: string,
    message = `Invalid transition: cannot apply event '${event}' in state '${state}'`,
    accepts?: readonly string[],
  ) {
    super(
      accepts === undefined
        ? message
        : `${message}; '${state}' accepts ${accepts.length > 0 ? accepts.join(', ') : 'no events'}`,
    );
    this.state = state;
    this.event = event;
    if (accepts !== undefined) this.accepts = accepts;
  }
}
