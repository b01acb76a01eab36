/**
 * What every statewright handler on Restate answers: the value, or the typed refusal as a value
 * (wire-error.ts). A refusal is never a thrown terminal error: a handler decides it before writing
 * anything, and the caller rebuilds the same error class from it.
 */
import { toWire, type WireError } from './wire-error.js';

export type Answer<T> = { readonly ok: T } | { readonly refused: WireError };

export const ok = <T>(value: T): Answer<T> => ({ ok: value });
export const refused = (error: Error): Answer<never> => ({ refused: toWire(error) });
