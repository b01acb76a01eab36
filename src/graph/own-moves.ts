/**
 * The moves a run's state makes without an outside sender: the transitions XState takes on events it
 * makes for the machine (an `after` delay, a state or an invoked actor done or failed, an actor's
 * snapshot, a spawned child done), each in words with where it leads. What explain lists apart from
 * the events a sender can send, and what a refusal adds when a state takes no outside event.
 */
import type { AnyMachineSnapshot, AnyStateNode } from 'xstate';
import { eventWords, isOutsideEvent } from './event-words.js';
import type { OwnMove } from './move-words.js';
import { activeStateNodes } from './xstate-internals.js';

/** Every move of the snapshot's active states on an event XState makes, innermost state first, as XState takes them. */
export function ownMoves(snapshot: AnyMachineSnapshot): OwnMove[] {
  if (snapshot.status !== 'active') return [];
  const moves = new Map<string, Set<string>>();
  for (const node of [...activeStateNodes(snapshot)].reverse()) {
    for (const [type, transitions] of node.transitions) {
      if (isOutsideEvent(type) || type === '*' || type.endsWith('.*')) continue;
      for (const transition of transitions) {
        // Neither target nor actions: XState's way to forbid the event, not a move.
        if (transition.target === undefined && transition.actions.length === 0) continue;
        const to = moves.get(type) ?? new Set<string>();
        moves.set(type, to);
        for (const target of (transition.target ?? []) as AnyStateNode[])
          to.add(target.parent ? target.path.join('.') : target.machine.id);
      }
    }
  }
  return [...moves].map(([event, to]) => ({ event, label: eventWords(snapshot.machine, event), to: [...to] }));
}

export { moveWords, type OwnMove } from './move-words.js';

/** The ids of the actors the snapshot's active states invoke: the ones the run waits on, unlike children it spawned. */
export function invokedActorIds(snapshot: AnyMachineSnapshot): Set<string> {
  return new Set(activeStateNodes(snapshot).flatMap((node) => node.invoke.map((invoke) => invoke.id)));
}
