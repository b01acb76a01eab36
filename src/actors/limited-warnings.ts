/**
 * Warnings about one agent's output, in a bounded number of log lines. An agent that writes
 * megabytes of lines that are not JSON would otherwise put a warning per line in the host's log
 * (50 MB came to about 52,000 lines). The first few are logged as they come, enough to see what is
 * wrong; the rest are counted, and the count is logged at most once per interval, and once more
 * when the agent's output ends (`flush`).
 */
export type WarningLog = (message: string, data: Record<string, unknown>) => void;

export interface LimitedWarningsOptions {
  /** How many are logged one by one. */
  readonly first?: number;
  /** The shortest time between two counts, in ms. */
  readonly intervalMs?: number;
}

export class LimitedWarnings {
  readonly #log: WarningLog;
  readonly #now: () => number;
  readonly #first: number;
  readonly #intervalMs: number;
  #seen = 0;
  /** Counted since the last count was logged, with the latest of them. */
  #unlogged = 0;
  #latest: { message: string; data: Record<string, unknown> } | undefined;
  #countedAt: number | undefined;

  constructor(log: WarningLog, now: () => number, options: LimitedWarningsOptions = {}) {
    this.#log = log;
    this.#now = now;
    this.#first = options.first ?? 5;
    this.#intervalMs = options.intervalMs ?? 60_000;
  }

  warn(message: string, data: Record<string, unknown> = {}): void {
    this.#seen += 1;
    if (this.#seen <= this.#first) {
      this.#log(message, data);
      return;
    }
    this.#unlogged += 1;
    this.#latest = { message, data };
    this.#countedAt ??= this.#now();
    if (this.#now() - this.#countedAt >= this.#intervalMs) this.flush();
  }

  /** Logs the count of warnings not logged yet, if any. */
  flush(): void {
    if (this.#unlogged === 0 || !this.#latest) return;
    const { message, data } = this.#latest;
    this.#log(
      `${this.#unlogged} more warnings about the agent's output were counted, not logged (${this.#seen} in all); the latest: ${message}`,
      {
        ...data,
        unlogged: this.#unlogged,
        total: this.#seen,
      },
    );
    this.#unlogged = 0;
    this.#latest = undefined;
    this.#countedAt = this.#now();
  }
}
