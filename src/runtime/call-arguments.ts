import { InvalidArgumentError } from './errors.js';
import type { SendOptions } from './run-handle.js';
import type { RunFilter } from '../stores/store.js';

/** The statuses an XState snapshot can have: what `list({ status })` filters on. */
export const RUN_STATUSES: readonly string[] = ['active', 'done', 'error', 'stopped'];

const MAX_ID_LENGTH = 256;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A run id a caller chose: a non-empty string, printable, of reasonable length (stores key folders and rows on it). */
export function checkRunId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH || CONTROL.test(id)) {
    throw new InvalidArgumentError('run id', id, `a non-empty string of at most ${MAX_ID_LENGTH} printable characters, e.g. "build-42" (leave it out to get a generated one)`);
  }
  return id;
}

/**
 * A start's input as the runtime keeps it: a JSON copy, so the machine starts from exactly what the
 * store holds (and what a restart restores), and the caller may change its object afterwards.
 */
export function ownedInput(input: unknown): unknown {
  if (input === undefined) return undefined;
  const expected = 'a JSON value (objects, arrays, strings, finite numbers, booleans, null)';
  let text: string | undefined;
  try {
    text = JSON.stringify(input);
  } catch {
    throw new InvalidArgumentError('input', input, expected);
  }
  if (text === undefined) throw new InvalidArgumentError('input', input, expected);
  return JSON.parse(text);
}

/** Send options with the right types; `null` counts as none. */
export function checkSendOptions(options: SendOptions | null): SendOptions | undefined {
  if (options === null) return undefined;
  if (typeof options !== 'object') throw new InvalidArgumentError('send options', options, 'an object such as { actor, reason, idempotencyKey, ifAccepted }');
  for (const name of ['actor', 'reason', 'idempotencyKey'] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) throw new InvalidArgumentError(`option '${name}'`, value, 'a non-empty string');
  }
  if (options.ifAccepted !== undefined && typeof options.ifAccepted !== 'boolean') throw new InvalidArgumentError("option 'ifAccepted'", options.ifAccepted, 'true or false');
  return options;
}

/** A list filter whose fields are strings, and whose status is one XState has. */
export function checkFilter(filter: RunFilter): RunFilter {
  for (const name of ['machine', 'state'] as const) {
    const value = filter[name];
    if (value !== undefined && typeof value !== 'string') throw new InvalidArgumentError(`filter '${name}'`, value, 'a string');
  }
  if (filter.status !== undefined && !RUN_STATUSES.includes(filter.status)) {
    throw new InvalidArgumentError("filter 'status'", filter.status, `one of ${RUN_STATUSES.join(', ')}`);
  }
  return filter;
}
