/**
 * A duration in a machine's input or config (a timeout, a lease's time to live), in ms. Bounded so
 * that a deadline computed from it is a date: a `Date` holds ±8.64e15 ms around 1970, and a
 * duration past that made the timer throw `RangeError: Invalid time value` and end the host.
 * A hundred years is far below that bound for any clock reading, and above any real timeout.
 */
import { z } from 'zod';

/** The longest duration a schema accepts: 100 years of 365.25 days, in ms. */
export const MAX_DURATION_MS = 100 * 365.25 * 24 * 60 * 60 * 1000;

/** Whole ms from `min` (default 1) to `MAX_DURATION_MS`; more is refused naming the bound. */
export function duration(min = 1) {
  return z
    .int({ error: 'must be a whole number of milliseconds' })
    .min(min, { error: `must be at least ${min} ms` })
    .max(MAX_DURATION_MS, {
      error: `must be at most ${MAX_DURATION_MS} ms (100 years), so that its deadline is a date`,
    });
}
