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
  const named = snapshot.machine.implementations.guards as Record<string, unknown>;
  for (const candidate of candidates) {
    // A guard named in `setup({ guards })` is referenced by its name; its function is kept apart.
    const guard = candidate.guard as unknown;
    const name = typeof guard === 'string' ? guard : guard && typeof guard === 'object' && 'type' in guard ? String(guard.type) : undefined;
    const failure = metadataGuardFailure(name !== undefined ? named[name] : guard, event, snapshot.context);
    if (failure) return failure;
  }
  const guards = candidates.map((c) => {
    const guard = c.guard as unknown;
    if (typeof guard === 'function') return guard.name || 'inline guard';
    if (typeof guard === 'string') return guard;
    return guard && typeof guard === 'object' && 'type' in guard ? String(guard.type) : 'guard';
  });
  return new InvalidTransitionError(
    state,
    event.type,
    `Invalid transition: event '${event.type}' in state '${state}' was refused by its guard (${guards.join(', ')})`,
  );
}
