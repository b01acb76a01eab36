/**
 * The seed's status-level API (hld's `STATES` table and `TransitionSession` validation), derived
 * from the machine: the statuses are its states, the allowed transitions its one-step graph.
 */
import type { StateValueFrom } from 'xstate';
import { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
import { lifecycleHelpers, withHelpers } from '../../src/graph/lifecycle-helpers.js';
import type { SessionEvent } from './events.js';
import { sessionMachine } from './machine.js';

/** starting, running, waiting_input, completed or failed: the machine's states. */
export type SessionStatus = StateValueFrom<typeof sessionMachine>;
export type TerminalSessionStatus = Extract<SessionStatus, 'completed' | 'failed'>;

const helpers = lifecycleHelpers<SessionStatus, SessionEvent['type'], TerminalSessionStatus>(sessionMachine);

/** Raised by `session.validateTransition`; `state` is the current status, `event` the requested one. */
export class SessionTransitionError extends InvalidTransitionError {
  constructor(
    readonly from: string,
    readonly to: string,
    message: string,
  ) {
    super(from, to, message);
  }
}

/**
 * The seed's validation step of `TransitionSession`, as a pure check. Throws
 * `Cannot transition from terminal state: S` or `Invalid transition: A → B`. The terminal check
 * comes first: in the seed's order it could never fire, since a terminal state allows nothing.
 */
function validateTransition(from: SessionStatus, to: SessionStatus): void {
  for (const status of [from, to]) {
    if (!helpers.isState(status)) {
      throw new SessionTransitionError(
        from,
        to,
        `Unknown session status: '${String(status)}' (expected one of ${helpers.states.join(', ')})`,
      );
    }
  }
  if (helpers.isTerminal(from))
    throw new SessionTransitionError(from, to, `Cannot transition from terminal state: ${from}`);
  if (!helpers.canMove(from, to)) throw new SessionTransitionError(from, to, `Invalid transition: ${from} → ${to}`);
}

/**
 * The session lifecycle's helpers: `states` (the statuses in definition order), `terminalStates`
 * (completed, failed), `activeStates` (the seed's "active sessions"), `transitions` (the seed's
 * `allowed_transitions`), `canMove(from, to)`, `isState`, `isTerminal`, `validEvents`,
 * `canTransition(status, event)`, and the seed's `validateTransition(from, to)`.
 */
export const session = withHelpers({ validateTransition }, helpers);
