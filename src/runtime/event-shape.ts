import type { EventObject } from 'xstate';
import { MalformedEventError } from './errors.js';

/** Checks what can be checked without a machine: a plain JSON object with a usable `type`. */
export function assertEventShape(event: unknown): asserts event is EventObject {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new MalformedEventError(event, `expected an object, got ${event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event}`);
  }
  const type = (event as { type?: unknown }).type;
  if (typeof type !== 'string' || type.length === 0) throw new MalformedEventError(event, `'type' must be a non-empty string, got ${JSON.stringify(type) ?? String(type)}`);
  if (type.startsWith('xstate.')) throw new MalformedEventError(event, `'${type}' is reserved for XState's own events`);
  const at = (event as { at?: unknown }).at;
  if (at !== undefined && (typeof at !== 'number' || !Number.isFinite(at))) throw new MalformedEventError(event, `'at' must be a time in ms since the epoch, got ${JSON.stringify(at)}`);
  try {
    JSON.stringify(event);
  } catch (error) {
    throw new MalformedEventError(event, `it cannot be stored as JSON (${(error as Error).message})`);
  }
}
