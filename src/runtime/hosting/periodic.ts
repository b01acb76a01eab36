/**
 * A task repeated in the background on real timers (lease renewals, the sweep), one run at a time:
 * the next starts `intervalMs` after the previous one ended, so a slow store never piles them up.
 * The timers do not keep the process alive.
 */
export interface Periodic {
  /** Runs the task now (after the one in flight, if any) and resolves when it is done. */
  runNow(): Promise<void>;
  /** No further runs; resolves once the one in flight (if any) has ended. */
  stop(): Promise<void>;
}

export function periodic(intervalMs: number, task: () => Promise<void>, onError: (error: Error) => void): Periodic {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const previous = running ?? Promise.resolve();
    const current: Promise<void> = previous
      .then(() => (stopped ? undefined : task()))
      .catch((error: Error) => onError(error))
      .finally(() => {
        if (running === current) running = undefined;
        if (!stopped && running === undefined && timer === undefined) {
          timer = setTimeout(() => void run(), intervalMs);
          timer.unref();
        }
      });
    running = current;
    return current;
  };
  timer = setTimeout(() => void run(), intervalMs);
  timer.unref();
  return {
    runNow: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
