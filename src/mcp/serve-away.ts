/**
 * A serve that is away for a while (stopped and started again, handed over, crashed and restarted)
 * is not a refusal: `statewright mcp` keeps its caller waiting and tries again, with backoff, at
 * the serve it finds next. What counts as away: a refused or dropped connection, a stream cut
 * mid-way, a 5xx (503 while the next serve restores its runs). A 4xx stands (an unknown run, a
 * credential the serve does not take).
 *
 * The next serve may listen elsewhere (`--port 0`): one found from the server files beside the
 * store is found there again; serve tells the `statewright mcp` it starts where those files are
 * (SERVER_DIR_ENV, src/session/permission-prompt.ts). The credential stays the one given: a serve started with the same token takes it.
 */
import { ServerRefusedError, ServerUnreachableError, type ServerTarget } from '../client/server-client.js';
import { readServerFiles } from '../serve/server-file.js';

export function isServeAway(error: unknown): boolean {
  return (
    error instanceof ServerUnreachableError ||
    (error instanceof ServerRefusedError && (error.status >= 500 || error.name === 'ServerResponseError'))
  );
}

/** Where the serve is now: `current()`, and `lost()` once it stopped answering there, to look again. */
export interface ServerLocation {
  current(): ServerTarget;
  lost(): void;
}

/** A serve at `server`; with `serverDir`, the newest live serve whose file is there once it is lost (same credential). */
export function serverLocation(server: ServerTarget, serverDir?: string): ServerLocation {
  let current = server;
  return {
    current: () => current,
    lost() {
      if (serverDir === undefined) return;
      const found = readServerFiles(serverDir)[0];
      if (found) current = { ...server, url: found.url.replace(/\/+$/, '') };
    },
  };
}

const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 2_000;

/** Waits growing delays (100 ms doubling to 2 s) between attempts; `reset()` after one that worked. */
export function backoff() {
  let delay = FIRST_DELAY_MS;
  return {
    reset: () => void (delay = FIRST_DELAY_MS),
    wait(signal: AbortSignal): Promise<void> {
      const ms = delay;
      delay = Math.min(delay * 2, MAX_DELAY_MS);
      return new Promise((resolve) => {
        if (signal.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}

/**
 * `call` (made at `location.current()`), again at the serve `location` finds after each time the serve is away, until it answers
 * (or refuses for good: that error is thrown) or `signal` aborts (its reason is thrown).
 */
export async function whenServeAnswers<T>(
  location: ServerLocation,
  call: () => Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  const delays = backoff();
  for (;;) {
    signal.throwIfAborted();
    try {
      return await call();
    } catch (error) {
      if (!isServeAway(error)) throw error;
    }
    await delays.wait(signal);
    location.lost();
  }
}
