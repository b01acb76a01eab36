/**
 * Hibernation: a host keeps in memory only the runs that are busy. A run with nothing queued,
 * nothing running but durable timers, and no deadline within the horizon, idle that long, is
 * dropped to its stored snapshot and its lease released with its next deadline; its next event
 * (a claim) or its deadline (the sweep reads the store's timer index) wakes it.
 */
import { InvalidArgumentError } from '../errors.js';

export interface Hibernation {
  /** How long (runtime clock) a run must have rested before it is dropped from memory. */
  readonly afterIdleMs: number;
  /** A run whose deadline falls within this (runtime clock) stays awake; the sweep wakes sleeping ones this early. */
  readonly horizonMs: number;
}

export const DEFAULT_HIBERNATION: Hibernation = { afterIdleMs: 30_000, horizonMs: 5_000 };

/** `createRuntime({ hibernate })` checked: undefined when hibernation is off. */
export function hibernationOptions(
  option: false | { afterIdleMs?: number; horizonMs?: number } | undefined,
): Hibernation | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (option === null || typeof option !== 'object'))
    throw new InvalidArgumentError(
      'createRuntime({ hibernate })',
      option,
      'false, or an object such as { afterIdleMs: 30000, horizonMs: 5000 }',
    );
  const checked = { ...DEFAULT_HIBERNATION };
  for (const name of ['afterIdleMs', 'horizonMs'] as const) {
    const value = option?.[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0)
      throw new InvalidArgumentError(`hibernate '${name}'`, value, 'a whole number of milliseconds, 0 or more');
    checked[name] = value;
  }
  return checked;
}

/** What hibernation reads of a hosted run. */
export interface RestingRun {
  /** Since when (runtime clock) the run has had nothing to do and nothing but timers running; undefined while busy. */
  restingSince(): number | undefined;
  /** Its earliest durable timer, or null. */
  nextDeadline(): number | null;
}

/** Whether the run may sleep now: it has rested `afterIdleMs` and its next deadline is beyond the horizon. */
export function mayHibernate(run: RestingRun, now: number, hibernation: Hibernation): boolean {
  const since = run.restingSince();
  if (since === undefined || now - since < hibernation.afterIdleMs) return false;
  const next = run.nextDeadline();
  return next === null || next > now + hibernation.horizonMs;
}
