/**
 * The seed's status-level API (hld's `STATES` table and `TransitionSession` validation), derived
 * from the machine: the statuses are its states, the allowed transitions its one-step graph.
 */
import type { StateValueFrom } from 'xstate';
import { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
import { finalStateNames, leafStates, stateName, transitionTable } from '../../src/graph/transition-table.js';
import { sessionMachine } from './machine.js';

/** starting, running, waiting_input, completed or failed: the machine's states. */
export type SessionStatus = StateValueFrom<typeof sessionMachine>;

/** All statuses in definition order. */
export const SESSION_STATUSES = Object.freeze(leafStates(sessionMachine).map(stateName)) as readonly SessionStatus[];
/** completed and failed. */
export const TERMINAL_SESSION_STATUSES = Object.freeze(finalStateNames(sessionMachine)) as readonly SessionStatus[];
/** starting, running and waiting_input: the statuses of the seed's "active sessions". */
export const ACTIVE_SESSION_STATUSES = Object.freeze(SESSION_STATUSES.filter((s) => !TERMINAL_SESSION_STATUSES.includes(s)));

/** The seed's `allowed_transitions`: the statuses one event can move a session to (self-loops are not status changes). */
const allowed = new Map<string, readonly SessionStatus[]>(SESSION_STATUSES.map((s) => [s, []]));
for (const row of transitionTable(sessionMachine)) {
  const targets = allowed.get(row.source) as SessionStatus[];
  if (row.target !== row.source && !targets.includes(row.target as SessionStatus)) targets.push(row.target as SessionStatus);
}

export function isSessionStatus(value: unknown): value is SessionStatus {
  return typeof value === 'string' && allowed.has(value);
}

export function isTerminalSessionStatus(status: SessionStatus): boolean {
  return TERMINAL_SESSION_STATUSES.includes(status);
}

export function allowedSessionTransitions(from: SessionStatus): readonly SessionStatus[] {
  return allowed.get(from) ?? [];
}

/** Raised by `validateSessionTransition`; `state` is the current status, `event` the requested one. */
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
export function validateSessionTransition(from: SessionStatus, to: SessionStatus): void {
  for (const status of [from, to]) {
    if (!isSessionStatus(status)) {
      throw new SessionTransitionError(from, to, `Unknown session status: '${String(status)}' (expected one of ${SESSION_STATUSES.join(', ')})`);
    }
  }
  if (isTerminalSessionStatus(from)) throw new SessionTransitionError(from, to, `Cannot transition from terminal state: ${from}`);
  if (!allowedSessionTransitions(from).includes(to)) throw new SessionTransitionError(from, to, `Invalid transition: ${from} → ${to}`);
}

export function canTransitionSession(from: SessionStatus, to: SessionStatus): boolean {
  return isSessionStatus(from) && isSessionStatus(to) && !isTerminalSessionStatus(from) && allowedSessionTransitions(from).includes(to);
}
