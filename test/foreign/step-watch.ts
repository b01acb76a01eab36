/**
 * serve's step stream (`GET /api/steps`) counted by run: a test waits for a run's next committed
 * step instead of polling, and reads what was committed from the store itself.
 */
import { authOf } from '../support/serve-process.js';
import { takeSseEvents } from '../support/sse-blocks.js';

export class StepWatch {
  readonly #counts = new Map<string, number>();
  readonly #waiting = new Set<() => void>();
  readonly #controller = new AbortController();
  #reading: Promise<void> = Promise.resolve();

  /** Opens the stream of the serve at `url`; resolves once it is open. */
  static async open(url: string): Promise<StepWatch> {
    const watch = new StepWatch();
    const response = await fetch(`${url}/api/steps`, { headers: authOf(url), signal: watch.#controller.signal });
    if (response.status !== 200) throw new Error(`the step stream answered ${response.status}`);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    watch.#reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) break;
        const { events, rest } = takeSseEvents(buffer + decoder.decode(value, { stream: true }));
        buffer = rest;
        for (const { event, data } of events) {
          if (event !== 'step') continue;
          const runId = (JSON.parse(data!) as { runId: string }).runId;
          watch.#counts.set(runId, (watch.#counts.get(runId) ?? 0) + 1);
        }
        for (const wake of watch.#waiting) wake();
      }
      // The stream ended (serve gone): wake every waiter, which then finds nothing new and fails by its own timeout.
      for (const wake of watch.#waiting) wake();
    })();
    return watch;
  }

  /** How many steps of the run the stream has told of so far. */
  count(runId: string): number {
    return this.#counts.get(runId) ?? 0;
  }

  /** Resolves once the stream has told of more than `seen` steps of the run. */
  async after(runId: string, seen: number): Promise<void> {
    while (this.count(runId) <= seen) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiting.delete(wake);
          resolve();
        };
        this.#waiting.add(wake);
      });
    }
  }

  async close(): Promise<void> {
    this.#controller.abort();
    await this.#reading;
  }
}
