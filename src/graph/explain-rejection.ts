import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { InvalidTransitionError } from './invalid-transition-error.js';
import { metadataGuardFailure } from './metadata-guard.js';
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
 * for the event in this state gives `InvalidTransitionError`; a transition whose metadata guard
 * refuses the payload gives `MetadataValidationError` naming the fields.
 */
export function explainRejection(snapshot: AnyMachineSnapshot, event: EventObject): Error {
  const state = currentStateName(snapshot);
  if (snapshot.status !== 'active') {
    return new InvalidTransitionError(state, event.type, `Invalid transition: cannot apply event '${event.type}' in state '${state}': the run is ${snapshot.status}`);
  }
  // A transition with neither target nor actions is XState's way to forbid an event (`can` is false).
  const candidates = snapshot._nodes
    .flatMap((node) => node.transitions.get(event.type) ?? [])
    .filter((t) => t.target !== undefined || t.actions.length > 0);
  if (candidates.length === 0) return new InvalidTransitionError(state, event.type);
  for (const candidate of candidates) {
    const failure = metadataGuardFailure(resolveGuard(snapshot, candidate.guard), event, snapshot.context);
    if (failure) return failure;
  }
  const guards = candidates.map((c) => (typeof c.guard === 'function' ? c.guard.name || 'inline guard' : typeof c.guard === 'string' ? c.guard : JSON.stringify(c.guard)));
  return new InvalidTransitionError(
    state,
    event.type,
    `Invalid transition: event '${event.type}' in state '${state}' was refused by its guard (${guards.join(', ')})`,
  );
}

/** A guard named in the config (`guard: 'hasError'` or `{ type: 'hasError' }`) is the function `setup({ guards })` gave that name. */
function resolveGuard(snapshot: AnyMachineSnapshot, guard: unknown): unknown {
  const name = typeof guard === 'string' ? guard : guard && typeof guard === 'object' && 'type' in guard ? guard.type : undefined;
  if (typeof name !== 'string') return guard;
  return (snapshot.machine.implementations.guards as Record<string, unknown>)[name] ?? guard;
}
