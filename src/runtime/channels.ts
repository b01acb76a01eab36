/**
 * Where a runtime tells the world what happened: committed steps to subscribers, refused sends to
 * the error channel, everything else to the log channel, XState's inspection events to the
 * inspector, and the last refusal of each run (`Runtime.lastRefusal`).
 */
import type { EventObject, InspectionEvent, Observer } from 'xstate';
import type { Clock } from '../actor-contract/clock.js';
import type { LogLevel } from '../actor-contract/run-handle.js';
import { refusal, type Refusal } from './refusal.js';
import type { CommittedStep } from './run-snapshot.js';

export interface RuntimeError {
  readonly runId: string;
  readonly event: EventObject;
  readonly error: Error;
}

export interface LogEntry {
  readonly runId: string;
  readonly level: LogLevel;
  readonly message: string;
  readonly data?: Record<string, unknown>;
}

export interface ChannelOptions {
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  onError?: (error: RuntimeError) => void;
  onLog?: (entry: LogEntry) => void;
}

export class Channels {
  /** Given each inspection event once the step it belongs to is committed; undefined when no one inspects (none are collected). */
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  readonly #subscribers = new Set<(step: CommittedStep) => void>();
  readonly #errorListeners = new Set<(error: RuntimeError) => void>();
  readonly #logListeners = new Set<(entry: LogEntry) => void>();
  readonly #lastRefusals = new Map<string, Refusal>();

  constructor(
    private readonly clock: Clock,
    options: ChannelOptions,
  ) {
    const inspect = options.inspect;
    this.inspect =
      inspect && (typeof inspect === 'function' ? inspect : (event: InspectionEvent) => inspect.next?.(event));
    if (options.onError) this.#errorListeners.add(options.onError);
    if (options.onLog) this.#logListeners.add(options.onLog);
  }

  /** Whether anyone listens for committed steps (else no step object is built). */
  get wantsSteps(): boolean {
    return this.#subscribers.size > 0;
  }

  subscribe(listener: (step: CommittedStep) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  onError(listener: (error: RuntimeError) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  onLog(listener: (entry: LogEntry) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  /** A step is durable: every subscriber hears of it; one that throws is logged, never the step's undoing. */
  committed(step: CommittedStep): void {
    for (const listener of this.#subscribers) {
      try {
        listener(step);
      } catch (error) {
        this.log(step.runId, 'error', `a subscriber threw: ${(error as Error).message}`);
      }
    }
  }

  error(runId: string, event: EventObject, error: Error): void {
    if (this.#errorListeners.size === 0) {
      // Never swallowed: with no listener, errors go to stderr.
      process.stderr.write(`statewright: run '${runId}', event '${event.type}': ${error.message}\n`);
      return;
    }
    const report: RuntimeError = { runId, event, error };
    for (const listener of this.#errorListeners) listener(report);
  }

  /** Told of every refused event, whoever sent it, before the sender hears of it. */
  refused(runId: string, event: EventObject, error: Error): void {
    this.#lastRefusals.set(runId, refusal(event, error, this.clock.now()));
  }

  lastRefusal(runId: string): Refusal | undefined {
    return this.#lastRefusals.get(runId);
  }

  log(runId: string, level: LogLevel, message: string, data?: Record<string, unknown>): void {
    if (this.#logListeners.size === 0) {
      if (level === 'warn' || level === 'error')
        process.stderr.write(`statewright ${level}: run '${runId}': ${message}\n`);
      return;
    }
    const entry: LogEntry = { runId, level, message, ...(data && { data }) };
    for (const listener of this.#logListeners) listener(entry);
  }
}
