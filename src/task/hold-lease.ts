/**
 * An agent's lease kept while it waits, and the wait itself: what a task agent does while its
 * check runs or its question waits for the response, whether it reaches the task on the store
 * (TaskSession) or through serve with a role credential (src/mcp/task-server.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `heartbeat` every `intervalMs` while `body` runs. A heartbeat refused because the lease was
 * lost (`lostLease(error)`) rejects the returned promise with that error at once; any other refusal
 * (a task that moved where no lease is held) only ends the heartbeats, and the body sees the move.
 */
export async function holdingLease<T>(
  heartbeat: () => Promise<unknown>,
  intervalMs: number,
  lostLease: (error: unknown) => boolean,
  body: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let lost: (error: Error) => void = () => {};
  const lostIt = new Promise<never>((_, reject) => (lost = reject));
  const beat = async () => {
    while (!controller.signal.aborted) {
      try {
        await sleep(intervalMs, undefined, { signal: controller.signal });
      } catch {
        return; // aborted: the body is done
      }
      try {
        await heartbeat();
      } catch (error) {
        if (!lostLease(error)) return;
        controller.abort();
        lost(error as Error);
        return;
      }
    }
  };
  void beat();
  try {
    return await Promise.race([body(controller.signal), lostIt]);
  } finally {
    controller.abort();
  }
}

/** Reads the task every `pollMs` until `done` holds, `signal` aborts, or `timeoutMs` passes (undefined then). */
export async function pollTask<T>(
  read: () => Promise<T>,
  done: (task: T) => boolean,
  options: { timeoutMs: number; signal?: AbortSignal; pollMs?: number },
): Promise<T | undefined> {
  const until = Date.now() + options.timeoutMs;
  for (;;) {
    const task = await read();
    if (done(task)) return task;
    if (options.signal?.aborted || Date.now() >= until) return undefined;
    await sleep(options.pollMs ?? 100);
  }
}
