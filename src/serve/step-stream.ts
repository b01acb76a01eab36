/**
 * `GET /api/steps`: every committed step of every run as a server-sent event, told after the
 * commit like every runtime listener (`event: step`, `id: <n>`, `data: {...}`). A comment line every
 * 15 s keeps proxies from closing an idle stream. Closing the stream set ends every open stream,
 * so a stopping server is not held open by its watchers.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { CommittedStep, Runtime } from '../runtime/index.js';

const KEEP_ALIVE_MS = 15_000;

/** What each `step` event carries. */
export interface StepJson {
  readonly runId: string;
  readonly machine: string;
  readonly seq: number;
  readonly event?: CommittedStep['event'];
  readonly before?: string;
  readonly after: string;
  readonly status: string;
  readonly at: number;
}

export function stepJson(step: CommittedStep): StepJson {
  return {
    runId: step.runId,
    machine: step.machine,
    seq: step.seq,
    ...(step.event && { event: step.event }),
    ...(step.before !== undefined && { before: step.before }),
    after: step.after,
    status: step.snapshot.status,
    at: step.snapshot.updatedAt,
  };
}

interface Watcher {
  push(step: StepJson & { id: number }): void;
  end(): void;
}

export class StepStreams {
  readonly #watchers = new Set<Watcher>();
  readonly #unsubscribe: () => void;
  #next = 1;
  #closed = false;

  constructor(runtime: Runtime) {
    this.#unsubscribe = runtime.subscribe((step) => {
      const event = { ...stepJson(step), id: this.#next++ };
      for (const watcher of this.#watchers) watcher.push(event);
    });
  }

  /** The response for one watcher: open until the client goes away or the streams close. */
  respond(c: Context): Response {
    return streamSSE(c, async (stream) => {
      if (this.#closed) return;
      const queue: Array<StepJson & { id: number }> = [];
      let wake: (() => void) | undefined;
      let ended = false;
      const watcher: Watcher = {
        push(step) {
          queue.push(step);
          wake?.();
        },
        end() {
          ended = true;
          wake?.();
        },
      };
      this.#watchers.add(watcher);
      stream.onAbort(() => watcher.end());
      try {
        // Sent at once, so a client knows the stream is open before any step arrives.
        await stream.write(': connected\n\n');
        while (!ended) {
          const step = queue.shift();
          if (step) {
            const { id, ...data } = step;
            await stream.writeSSE({ event: 'step', id: String(id), data: JSON.stringify(data) });
            continue;
          }
          let timer: NodeJS.Timeout | undefined;
          const timedOut = await new Promise<boolean>((resolve) => {
            wake = () => resolve(false);
            timer = setTimeout(() => resolve(true), KEEP_ALIVE_MS);
          });
          clearTimeout(timer);
          wake = undefined;
          if (timedOut && !ended) await stream.write(': keep-alive\n\n');
        }
      } finally {
        this.#watchers.delete(watcher);
      }
    });
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const watcher of this.#watchers) watcher.end();
  }
}
