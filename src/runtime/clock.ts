/** Where the runtime and its actors get the time from. Tests use `ManualClock`. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A clock that moves only when told to; due timers fire, in deadline order, as it advances. */
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
    this.#timers.set(id, { due: this.#now + Math.max(0, ms), callback });
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
      const due = [...this.#timers].filter(([, t]) => t.due <= to).sort((a, b) => a[1].due - b[1].due || a[0] - b[0])[0];
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
