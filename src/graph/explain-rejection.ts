import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { acceptedEventTypes } from './event-needs.js';
import { explainedGuardFailure } from './explained-guard.js';
import { InvalidTransitionError } from './invalid-transition-error.js';
import { metadataGuardFailure, namedEdgeOf } from './metadata-guard.js';
import { roleGuardFailure } from './role-guard.js';
import { moveWords, ownMoves } from './own-moves.js';
import { currentStateName } from './state-name.js';
import { activeStateNodes, higherOrderGuard } from './xstate-internals.js';

/**
 * Why `snapshot` does not take `event` (call it when `snapshot.can(event)` is false): no transition
 * for the event in this state gives `InvalidTransitionError`; an event that names an edge this
 * state does not have (`{ from, to }`, see `metadataGuard`'s `namedEdge`) gives
 * `InvalidTransitionError` "Invalid transition from <state> to <to>"; a transition whose role guard
 * refuses the sender gives `RoleError` naming the role and the action; one whose metadata guard
 * refuses the payload gives `MetadataValidationError` naming the fields. Guards combined with
 * XState's `and` and guards referenced by name are looked into.
 */
export function explainRejection(snapshot: AnyMachineSnapshot, event: EventObject): Error {
  const state = currentStateName(snapshot);
  if (snapshot.status !== 'active') {
    return new InvalidTransitionError(
      state,
      event.type,
      `Invalid transition: cannot apply event '${event.type}' in state '${state}': the run is ${snapshot.status}`,
      [],
    );
  }
  const accepts = acceptedEventTypes(snapshot);
  const own = ownMoves(snapshot).map(moveWords);
  // A transition with neither target nor actions is XState's way to forbid an event (`can` is false).
  const candidates = activeStateNodes(snapshot)
    .flatMap((node) => node.transitions.get(event.type) ?? [])
    .filter((t) => t.target !== undefined || t.actions.length > 0);
  if (candidates.length === 0) return new InvalidTransitionError(state, event.type, undefined, accepts, own);
  const named = candidates.map((c) => namedEdgeOf(c.guard)).filter((n) => n !== undefined);
  if (named.length > 0) {
    const { from, to } = named[0]!.read(event);
    if (from !== state || !named.some((n) => n.source === state && n.target === to)) {
      const claimed = from === state ? '' : `: the event says it leaves '${String(from)}'`;
      return new InvalidTransitionError(
        state,
        event.type,
        `Invalid transition from ${state} to ${String(to)}${claimed}`,
      );
    }
  }
  for (const candidate of candidates) {
    const failure = guardFailure(candidate.guard, snapshot, event, state);
    if (failure) return failure;
  }
  const guards = candidates.map((c) =>
    typeof c.guard === 'function'
      ? c.guard.name || 'inline guard'
      : typeof c.guard === 'string'
        ? c.guard
        : JSON.stringify(c.guard),
  );
  return new InvalidTransitionError(
    state,
    event.type,
    `Invalid transition: event '${event.type}' in state '${state}' was refused by its guard (${guards.join(', ')})`,
    accepts,
    own,
  );
}

/** The explanation of the first explainable guard inside `guard` that refuses `event`, if any. */
function guardFailure(
  guard: unknown,
  snapshot: AnyMachineSnapshot,
  event: EventObject,
  state: string,
  depth = 0,
): Error | undefined {
  if (depth > 32) return undefined; // a guard that refers to itself; XState would loop on it too
  const name = typeof guard === 'string' ? guard : isGuardObject(guard) ? guard.type : undefined;
  if (name !== undefined) {
    const resolved = snapshot.machine.implementations.guards[name];
    return resolved ? guardFailure(resolved, snapshot, event, state, depth + 1) : undefined;
  }
  if (typeof guard !== 'function') return undefined;
  const own =
    roleGuardFailure(guard, event, state) ??
    metadataGuardFailure(guard, event, snapshot.context) ??
    explainedGuardFailure(guard, snapshot.context, event, state);
  if (own) return own;
  const combined = higherOrderGuard(guard);
  // Only `and` fails when one part fails; `or` and `not` have no single part to blame.
  if (combined?.kind === 'and') {
    for (const part of combined.parts) {
      const failure = guardFailure(part, snapshot, event, state, depth + 1);
      if (failure) return failure;
    }
  }
  return undefined;
}

const isGuardObject = (guard: unknown): guard is { type: string } =>
  typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string';

export { currentStateName };
