/**
 * Polls `probe` until it gives a value (anything but undefined, null or false) and returns it;
 * fails naming `what` after `timeoutMs`. For waiting on other processes and timers in tests.
 * The timeout only catches a hang: a child process can take seconds to start on a busy machine.
 * The default stays under the in-process tests' 30 s, so a hang fails naming what it waited for.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 25_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
