import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { InvalidTransitionError } from './invalid-transition-error.js';
import { metadataGuardFailure, namedEdgeOf } from './metadata-guard.js';
import { stateName } from './transition-table.js';

/** The state a snapshot rests in, as tables name it ("running", "work.check"). */
export function currentStateName(snapshot: AnyMachineSnapshot): string {
  return snapshot._nodes
    .filter((n) => n.type === 'atomic' || n.type === 'final')
    .map(stateName)
    .join('|');
}

/**
 * Why `snapshot` does not take `event` (call it when `snapshot.can(event)` is false): no transition
 * for the event in this state gives `InvalidTransitionError`; an event that names an edge this
 * state does not have (`{ from, to }`, see `metadataGuard`'s `namedEdge`) gives
 * `InvalidTransitionError` "Invalid transition from <state> to <to>"; a transition whose metadata
 * guard refuses the payload gives `MetadataValidationError` naming the fields.
 */
export function explainRejection(snapshot: AnyMachineSnapshot, event: EventObject): Error {
  const state = currentStateName(snapshot);
  if (snapshot.status !== 'active') {
    return new InvalidTransitionError(state, event.type, `Invalid transition: cannot apply event '${event.type}' in state '${state}': the run is ${snapshot.status}`);
  }
  const candidates = snapshot._nodes.flatMap((node) => node.transitions.get(event.type) ?? []);
  if (candidates.length === 0) return new InvalidTransitionError(state, event.type);
  const named = candidates.map((c) => namedEdgeOf(c.guard)).filter((n) => n !== undefined);
  if (named.length > 0) {
    const { from, to } = named[0]!.read(event);
    if (from !== state || !named.some((n) => n.source === state && n.target === to)) {
      const claimed = from === state ? '' : `: the event says it leaves '${String(from)}'`;
      return new InvalidTransitionError(state, event.type, `Invalid transition from ${state} to ${String(to)}${claimed}`);
    }
  }
  for (const candidate of candidates) {
    const failure = metadataGuardFailure(candidate.guard, event, snapshot.context);
    if (failure) return failure;
  }
  const guards = candidates.map((c) => (typeof c.guard === 'function' ? c.guard.name || 'inline guard' : JSON.stringify(c.guard)));
  return new InvalidTransitionError(
    state,
    event.type,
    `Invalid transition: event '${event.type}' in state '${state}' was refused by its guard (${guards.join(', ')})`,
  );
}
