import type { EventObject } from 'xstate';

/** The last event a runtime refused for a run, and why: what `explain` shows as `lastRefused`. */
export interface Refusal {
  readonly event: { type: string; [key: string]: unknown };
  /** The typed error's name ("InvalidTransitionError", "MetadataValidationError", "RoleError"...). */
  readonly error: string;
  readonly message: string;
  /** When it was refused, on the runtime's clock. */
  readonly at: number;
}

export const refusal = (event: EventObject, error: Error, at: number): Refusal => ({
  event: { ...event },
  error: error.name,
  message: error.message,
  at,
});
