import type { EventObject } from 'xstate';
import type { Clock } from '../actor-contract/clock.js';
import { MalformedEventError, PayloadTooLargeError } from './errors.js';

/** An event as the runtime applies and stores it: the runtime's own copy, stamped with when it was sent. */
export type OwnedEvent = EventObject & { at: number; [key: string]: unknown };

/**
 * Checks what can be checked without a machine (a plain JSON object with a usable `type`) and
 * returns the runtime's own copy, stamped with `at` (ms since the epoch) unless it has one. A
 * payload with nested objects is copied through JSON, so the machine sees exactly what the store
 * keeps and a replay of the log will see, and the caller can change its object afterwards without
 * touching the run; a flat payload only needs a shallow copy for that. With `maxBytes`, an event
 * whose JSON is larger is refused (`PayloadTooLargeError`) before anything is queued.
 */
export function ownedEvent(event: unknown, clock: Clock, maxBytes?: number): OwnedEvent {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new MalformedEventError(
      event,
      `expected an object, got ${event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event}`,
    );
  }
  const type = (event as { type?: unknown }).type;
  if (typeof type !== 'string' || type.length === 0)
    throw new MalformedEventError(
      event,
      `'type' must be a non-empty string, got ${JSON.stringify(type) ?? String(type)}`,
    );
  if (type.startsWith('xstate.')) throw new MalformedEventError(event, `'${type}' is reserved for XState's own events`);
  const at = (event as { at?: unknown }).at;
  if (at !== undefined && (typeof at !== 'number' || !Number.isFinite(at)))
    throw new MalformedEventError(event, `'at' must be a time in ms since the epoch, got ${JSON.stringify(at)}`);
  let owned: OwnedEvent;
  const flatBound = flatJsonBound(event);
  if (flatBound >= 0) {
    if (maxBytes !== undefined && flatBound > maxBytes) checkSize(JSON.stringify(event), maxBytes);
    owned = Object.assign({}, event) as OwnedEvent;
  } else {
    owned = jsonCopy(event, maxBytes);
  }
  if (at === undefined) owned.at = clock.now();
  return owned;
}

/**
 * For a flat event (every own field a string, a finite number, a boolean or null: JSON as it is),
 * an upper bound of its JSON size in bytes, without building it: a UTF-16 unit takes at most 6
 * bytes (an escape such as \u0000), a number or a boolean at most 24 characters. Most events are
 * far below the limit, so the exact size is measured only for the rare large one. -1 when the
 * event is not flat (it is then copied through JSON, which measures it).
 */
function flatJsonBound(event: object): number {
  if (Object.getPrototypeOf(event) !== Object.prototype) return -1;
  let bytes = 2;
  for (const key in event) {
    const value = (event as Record<string, unknown>)[key];
    const kind = typeof value;
    if (kind === 'string') bytes += key.length * 6 + 6 + (value as string).length * 6;
    else if (kind === 'boolean' || value === null || (kind === 'number' && Number.isFinite(value)))
      bytes += key.length * 6 + 28;
    else return -1;
  }
  return bytes;
}

function checkSize(text: string, maxBytes: number): void {
  // Each UTF-16 unit is 1 to 3 bytes of UTF-8: only a text that may be over is measured.
  if (text.length * 3 <= maxBytes) return;
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) throw new PayloadTooLargeError('event', bytes, maxBytes);
}

function jsonCopy(event: object, maxBytes: number | undefined): OwnedEvent {
  let text: string;
  try {
    text = JSON.stringify(event);
  } catch (error) {
    throw new MalformedEventError(event, `it cannot be stored as JSON (${(error as Error).message})`);
  }
  if (maxBytes !== undefined && text !== undefined) checkSize(text, maxBytes);
  const copy = JSON.parse(text) as unknown;
  if (
    copy === null ||
    typeof copy !== 'object' ||
    Array.isArray(copy) ||
    typeof (copy as { type?: unknown }).type !== 'string'
  ) {
    throw new MalformedEventError(event, 'its JSON form is not an object with a type (does it define toJSON?)');
  }
  return copy as OwnedEvent;
}
