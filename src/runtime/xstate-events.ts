/**
 * The events XState makes for a run itself: an invoked actor's done or error event
 * (`invoke: { onDone, onError }`), an `after` delay or a delayed `raise`, an event a child sends
 * its parent, a new snapshot of a child watched with `onSnapshot` (`xstate.snapshot.<id>`). XState
 * hands each straight to the run's actor (`system._relay`); here they are taken into the run's
 * queue instead, so each is applied in order with the others, committed with its snapshot and
 * audited, and replayed from the log, as if an actor had reported it with `run.send`.
 */
import type { AnyActorRef } from 'xstate';
import type { Clock } from '../actor-contract/clock.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import type { OwnedEvent } from './event-shape.js';

interface RelayingSystem {
  _relay(source: AnyActorRef | undefined, target: AnyActorRef, event: { type: string }): void;
}

/**
 * Routes what XState relays to `root` from inside (a source: a child, or `root` for its own
 * delays) to `post`; what the runtime sends (no source) goes through as before. XState does not
 * publish this seam: `test/runtime/xstate-events.test.ts` holds it to the XState in use.
 */
export function takeXStateEvents(
  root: AnyActorRef,
  clock: Clock,
  post: (event: OwnedEvent, options: SendOptions) => void,
  warn: (message: string) => void,
): void {
  const system = root.system as unknown as RelayingSystem;
  const relay = system._relay.bind(system);
  system._relay = (source, target, event) => {
    if (target !== root || source === undefined) return relay(source, target, event);
    // An actor's failure no state takes would put XState's machine in status 'error' (and a run
    // restored to retry would fail again, for ever): it is said, and the run stays where it is.
    if (event.type.startsWith('xstate.error.actor') && !root.getSnapshot().can(event))
      return warn(
        `its actor '${source.id}' failed (${errorText(event)}) and no transition of its state takes ${event.type}: the run stays where it is. Give the invoke an onError.`,
      );
    // As XState does, what the state does not take (any more) is dropped.
    post(storable(event, clock), { actor: source === root ? 'xstate' : source.id, ifAccepted: true });
  };
}

const errorText = (event: { type: string; error?: unknown }) =>
  event.error instanceof Error ? event.error.message : String(event.error);

/** The event as the store keeps it: JSON, an error as its name and message, stamped with when it came. */
function storable(event: { type: string }, clock: Clock): OwnedEvent {
  const json = JSON.parse(
    JSON.stringify(event, (_key, value) =>
      value instanceof Error ? { name: value.name, message: value.message } : (value as unknown),
    ),
  ) as OwnedEvent;
  json.at ??= clock.now();
  return json;
}
