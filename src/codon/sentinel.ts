/**
 * Sentinels: LLM observers that run beside a codon's agent (seed: "Sentinel State Integration").
 * Each has a queue of LLM calls that it works through one at a time; when the agent is done the
 * queues must drain before the codon ends. `Sentinel` is what the drain needs; `SentinelQueue` is
 * a sentinel whose calls are plain async functions (the LLM client is the caller's).
 */
import type { SentinelState, SentinelUnloadReason } from '../../machines/codon/types.js';
import type { Clock } from '../actor-contract/clock.js';

export interface Sentinel {
  readonly id: string;
  /** Its activity so far, in the seed's shape. */
  state(): SentinelState;
  /** Resolves once every queued call has run (or the sentinel was unloaded and its queue dropped). */
  drained(): Promise<void>;
  /** Stops taking calls and drops the queue; the first reason given is kept. */
  unload(reason: SentinelUnloadReason): void;
}

/** One LLM call; resolves with what it cost. */
export type LlmCall = () => Promise<{ costUsd: number }>;

export interface SentinelQueueOptions {
  id: string;
  model: string;
  clock: Clock;
  /** Unload after this many failed calls in a row (default 3). */
  maxConsecutiveFailures?: number;
}

export class SentinelQueue implements Sentinel {
  readonly id: string;
  readonly #clock: Clock;
  readonly #maxConsecutiveFailures: number;
  #state: SentinelState;
  #queue: LlmCall[] = [];
  #busy = false;
  #consecutiveFailures = 0;
  #idle: Array<() => void> = [];

  constructor(options: SentinelQueueOptions) {
    this.id = options.id;
    this.#clock = options.clock;
    this.#maxConsecutiveFailures = options.maxConsecutiveFailures ?? 3;
    this.#state = {
      id: options.id,
      model: options.model,
      loadedAt: this.#now(),
      llmCallCount: 0,
      failedLLMCalls: 0,
      totalTriggers: 0,
      totalCost: 0,
      status: 'active',
    };
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString();
  }

  /** Queues a call; false when the sentinel is unloaded and takes no more. */
  trigger(call: LlmCall): boolean {
    if (this.#state.status === 'unloaded') return false;
    this.#state = { ...this.#state, totalTriggers: (this.#state.totalTriggers ?? 0) + 1 };
    this.#queue.push(call);
    void this.#work();
    return true;
  }

  async #work(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    for (let call = this.#queue.shift(); call; call = this.#queue.shift()) {
      let cost = 0;
      let failed = false;
      try {
        cost = (await call()).costUsd;
      } catch {
        failed = true;
      }
      this.#state = {
        ...this.#state,
        llmCallCount: this.#state.llmCallCount + 1,
        failedLLMCalls: this.#state.failedLLMCalls + (failed ? 1 : 0),
        totalCost: this.#state.totalCost + cost,
        lastLlmCallAt: this.#now(),
      };
      this.#consecutiveFailures = failed ? this.#consecutiveFailures + 1 : 0;
      if (this.#consecutiveFailures >= this.#maxConsecutiveFailures) this.unload('consecutive-failures');
    }
    this.#busy = false;
    for (const wake of this.#idle.splice(0)) wake();
  }

  drained(): Promise<void> {
    if (!this.#busy && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  unload(reason: SentinelUnloadReason): void {
    if (this.#state.status === 'unloaded') return;
    this.#state = { ...this.#state, status: 'unloaded', unloadReason: reason, unloadedAt: this.#now() };
    this.#queue.length = 0;
  }

  state(): SentinelState {
    return { ...this.#state };
  }
}
