/**
 * Raised when the current state does not accept an event. XState itself ignores such events;
 * statewright never does. Carries the state and event for programmatic handling.
 */
export class InvalidTransitionError extends Error {
  // Widened to string so that refinements (RoleError) can name themselves.
  override readonly name: string = 'InvalidTransitionError';
  readonly state: string;
  readonly event: string;

  constructor(state: string, event: string, message = `Invalid transition: cannot apply event '${event}' in state '${state}'`) {
    super(message);
    this.state = state;
    this.event = event;
  }
}
