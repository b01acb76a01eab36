/** Where the runtime and its actors get the time from. Tests use `ManualClock`. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The longest delay Node's `setTimeout` keeps: a longer one fires after 1 ms (`TimeoutOverflowWarning`). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The last instant a `Date` can hold (ms since the epoch); a deadline past it is never reached. */
export const LAST_DATE_MS = 8.64e15;

/**
 * Calls `callback` once `clock` reaches `deadline` (ms since the epoch), however far away: the
 * wait is armed in steps Node's timers can hold, and each step reads the clock again. A deadline
 * past the last date never fires. Returns the function that cancels it.
 */
export function setTimeoutAt(clock: Clock, deadline: number, callback: () => void): () => void {
  let handle: unknown;
  let cancelled = false;
  // Always through the clock, even when due: the caller's own turn (a restore applying its
  // recovery events first) completes before the callback runs.
  const arm = () => {
    handle = clock.setTimeout(
      () => {
        if (cancelled) return;
        if (clock.now() >= deadline) callback();
        else arm();
      },
      Math.min(Math.max(0, deadline - clock.now()), MAX_TIMEOUT_MS),
    );
  };
  if (!(deadline <= LAST_DATE_MS)) return () => {};
  arm();
  return () => {
    cancelled = true;
    clock.clearTimeout(handle);
  };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * A clock that moves only when told to; due timers fire, in deadline order, as it advances. Like
 * Node's, a delay past `MAX_TIMEOUT_MS` (or not a number) fires after 1 ms, so that a test on this
 * clock catches what the system clock would do.
 */
export class ManualClock implements Clock {
  #now: number;
  #timers = new Map<number, { due: number; callback: () => void }>();
  #nextId = 1;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.#nextId++;
    const delay = ms > MAX_TIMEOUT_MS || Number.isNaN(ms) ? 1 : Math.max(0, ms);
    this.#timers.set(id, { due: this.#now + delay, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    this.set(this.#now + ms);
  }

  /** Moves time to `to`, firing every timer due at or before it. */
  set(to: number): void {
    for (;;) {
      const due = [...this.#timers]
        .filter(([, t]) => t.due <= to)
        .sort((a, b) => a[1].due - b[1].due || a[0] - b[0])[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = Math.max(this.#now, due[1].due);
      due[1].callback();
    }
    this.#now = Math.max(this.#now, to);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }
}
