import type { EventObject } from 'xstate';
import { systemClock, type Clock } from '../../src/actor-contract/clock.js';
import type { LogLevel, RunHandle, SendOptions } from '../../src/actor-contract/run-handle.js';

export type Sent = { event: EventObject & Record<string, any>; options: SendOptions | undefined };

/**
 * A RunHandle that keeps everything an actor sends and logs, in order, and lets a test wait for a
 * report. It is a complete handle of the contract (what the runtime gives an actor), not a mock of
 * anything the actor uses.
 */
export class RecordingRun implements RunHandle {
  readonly sent: Sent[] = [];
  readonly logs: Array<{ level: LogLevel; message: string; data?: Record<string, unknown> }> = [];
  #waiters = new Set<() => void>();

  constructor(
    readonly runId = 'run-1',
    readonly machine = 'codon',
    readonly clock: Clock = systemClock,
  ) {}

  send(event: EventObject, options?: SendOptions): void {
    this.sent.push({ event: event as Sent['event'], options });
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
  }

  afterCommit(effect: () => void): void {
    queueMicrotask(effect);
  }

  /** Every step commits at once here: a stopped actor ends its work then and there. */
  afterStop(effect: () => void): void {
    effect();
  }

  log(level: LogLevel, message: string, data?: Record<string, unknown>): void {
    this.logs.push({ level, message, ...(data && { data }) });
    this.#wake();
  }

  /** The events sent so far, optionally only those of one type. */
  events(type?: string): Array<Sent['event']> {
    return this.sent.map((s) => s.event).filter((e) => type === undefined || e.type === type);
  }

  /** Resolves with the first event of `type` (already sent or still to come); rejects after `timeoutMs`. */
  next(type: string, timeoutMs = 10_000): Promise<Sent['event']> {
    return this.until(
      () => this.events(type)[0],
      `no '${type}' within ${timeoutMs} ms; sent so far: ${this.events()
        .map((e) => e.type)
        .join(', ')}`,
      timeoutMs,
    );
  }

  /** Resolves once `probe` returns something (checked on every report and log line); rejects with `message` after `timeoutMs`. */
  until<T>(probe: () => T | undefined, message: string, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const value = probe();
        if (value === undefined) return false;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(message));
      }, timeoutMs);
      if (!check()) this.#waiters.add(check);
    });
  }
}
