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
  /** The event types a sender can send that the state accepts (given the right payload and sender), when known. */
  readonly accepts?: readonly string[];

  /**
   * `movesOnItsOwn`: what the state does without an outside sender, in words ("after 20 s ->
   * timedOut", `moveWords`), which the message adds after what it accepts.
   */
  constructor(
    state: string,
    event: string,
    message = `Invalid transition: cannot apply event '${event}' in state '${state}'`,
    accepts?: readonly string[],
    movesOnItsOwn: readonly string[] = [],
  ) {
    const own = movesOnItsOwn.length > 0 ? `; it moves on its own: ${movesOnItsOwn.join('; ')}` : '';
    super(
      accepts === undefined
        ? message
        : `${message}; '${state}' accepts ${accepts.length > 0 ? accepts.join(', ') : 'no events'}${own}`,
    );
    this.state = state;
    this.event = event;
    if (accepts !== undefined) this.accepts = accepts;
  }
}
