/**
 * `GET /api/steps`: every committed step of every run as a server-sent event, told after the
 * commit like every runtime listener (`event: step`, `id: <n>`, `data: {...}`). A comment line every
 * 15 s keeps proxies from closing an idle stream. Closing the stream set ends every open stream,
 * so a stopping server is not held open by its watchers.
 *
 * A client that reads slower than steps commit is dropped once its unsent steps pass
 * `MAX_UNSENT_BYTES`: its stream ends, its connection is reset and the runtime's log channel says
 * who and why. Without that, a client that never reads would hold every step from then on.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { CommittedStep, Runtime } from '../runtime/index.js';

const KEEP_ALIVE_MS = 15_000;

/**
 * The most a client may have unsent (queued for it and not yet taken by its socket) before it is
 * dropped: four of the largest steps the runtime accepts by default (an event of 1 MiB), so a
 * burst of big steps does not drop a reader who keeps up. A step's bytes are shared by every
 * watcher, so all slow clients together hold about this much, not this much each. Past it, each
 * client's socket and the stream machinery hold only a few more steps: @hono/node-server reads
 * the next chunk only once the socket has drained, and hono's `stream.write` waits for that read.
 */
export const MAX_UNSENT_BYTES = 4 * 1024 * 1024;

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

/** What the open streams hold right now. */
export interface StepStreamStats {
  readonly watchers: number;
  /** Bytes queued for all of them and not yet taken by their sockets. */
  readonly unsentBytes: number;
}

interface Watcher {
  readonly unsentBytes: number;
  /** Queues one step's event, or drops the client if that puts it past the bound. */
  push(event: Uint8Array): void;
  end(): void;
}

const encoder = new TextEncoder();

export class StepStreams {
  readonly #runtime: Runtime;
  readonly #watchers = new Set<Watcher>();
  readonly #unsubscribe: () => void;
  #next = 1;
  #closed = false;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
    this.#unsubscribe = runtime.subscribe((step) => {
      const id = this.#next++;
      if (this.#watchers.size === 0) return;
      // Encoded once for every watcher: their queues share the bytes.
      const event = encoder.encode(`event: step\ndata: ${JSON.stringify(stepJson(step))}\nid: ${id}\n\n`);
      for (const watcher of this.#watchers) watcher.push(event);
    });
  }

  stats(): StepStreamStats {
    let unsentBytes = 0;
    for (const watcher of this.#watchers) unsentBytes += watcher.unsentBytes;
    return { watchers: this.#watchers.size, unsentBytes };
  }

  /** The response for one watcher: open until the client goes away, falls too far behind, or the streams close. */
  respond(c: Context): Response {
    // Present when served by @hono/node-server: the socket, to name the client and to reset it.
    const bindings = c.env as Partial<HttpBindings> | undefined;
    const socket = bindings?.incoming?.socket;
    const address = socket?.remoteAddress?.includes(':') ? `[${socket.remoteAddress}]` : socket?.remoteAddress;
    const client = address ? `${address}:${socket!.remotePort}` : 'a client';
    return streamSSE(c, async (stream) => {
      if (this.#closed) return;
      let queue: Uint8Array[] = [];
      // Counts the event being written until the stream takes it.
      let unsent = 0;
      let sent = 0;
      let wake: (() => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      let ended = false;
      // Lets go of everything the watcher holds at once, wherever its loop is waiting.
      const end = () => {
        if (ended) return;
        ended = true;
        this.#watchers.delete(watcher);
        queue = [];
        unsent = 0;
        clearTimeout(timer);
        wake?.();
      };
      const watcher: Watcher = {
        get unsentBytes() {
          return unsent;
        },
        push: (event) => {
          if (ended) return;
          // A client with nothing pending keeps up, even if one step is past the bound on its own.
          if (unsent === 0 || unsent + event.byteLength <= MAX_UNSENT_BYTES) {
            queue.push(event);
            unsent += event.byteLength;
            wake?.();
            return;
          }
          this.#runtime.log(
            '',
            'warn',
            `step stream: dropped client ${client}, which reads slower than steps commit: ${unsent + event.byteLength} bytes of steps unsent, more than ${MAX_UNSENT_BYTES}`,
            {
              client,
              unsentBytes: unsent + event.byteLength,
              maxUnsentBytes: MAX_UNSENT_BYTES,
              sentSteps: sent,
            },
          );
          end();
          // A write waiting on the socket fails, so the loop ends; the socket will not drain, so
          // it is reset rather than closed: the kernel lets go of what it still holds for it.
          stream.abort();
          if (socket && !socket.destroyed) socket.resetAndDestroy();
        },
        end,
      };
      this.#watchers.add(watcher);
      stream.onAbort(end);
      try {
        // Sent at once, so a client knows the stream is open before any step arrives.
        await stream.write(': connected\n\n');
        while (!ended) {
          const event = queue.shift();
          if (event) {
            await stream.write(event);
            if (ended) break;
            unsent -= event.byteLength;
            sent++;
            continue;
          }
          const timedOut = await new Promise<boolean>((resolve) => {
            wake = () => resolve(false);
            timer = setTimeout(() => resolve(true), KEEP_ALIVE_MS);
          });
          clearTimeout(timer);
          wake = undefined;
          if (timedOut && !ended) await stream.write(': keep-alive\n\n');
        }
      } finally {
        end();
      }
    });
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const watcher of this.#watchers) watcher.end();
  }
}
