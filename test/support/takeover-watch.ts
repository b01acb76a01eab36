/**
 * Watching runs change hands, from the store: which runs a host holds, and when each of them was
 * claimed by another host (its lease's epoch raised) after that host was killed, paused or cut off.
 * The times are figures for docs/hosting.md, observed by polling the store every `intervalMs`: a test
 * asserts only that every takeover happened, never how fast.
 */
import type { Store } from '../../src/stores/store.js';
import { until } from './until.js';

/** The active runs `holder` holds now, with the epoch it holds each at. */
export async function heldBy(store: Store, holder: string): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  for (const run of await store.list({ status: 'active' })) {
    if (run.lease?.state === 'held' && run.lease.holder === holder) held.set(run.runId, run.lease.epoch);
  }
  return held;
}

export interface Takeover {
  readonly runId: string;
  /** The host that claimed it. */
  readonly by: string;
  /** From `since` (the kill, the pause, the cut) to when the claim was seen in the store. */
  readonly afterMs: number;
}

/**
 * Resolves once every run of `held` was claimed by someone else (a raised epoch), with when each
 * was seen. A run that its host ended (a final state, committed under its own lease) or let go (it
 * fell asleep) in the moment before it stopped needs no takeover: it is left out, unless
 * `handedOver` says that the host let its runs go on purpose, for others to adopt: then each is waited for.
 */
export async function takenOver(
  store: Store,
  held: ReadonlyMap<string, number>,
  since: number,
  what: string,
  options: { handedOver?: boolean; timeoutMs?: number } = {},
): Promise<Takeover[]> {
  const seen = new Map<string, Takeover>();
  const left = new Map<string, string>();
  const letGo = new Set<string>();
  await until(
    `${what}: its ${held.size} runs to be taken over`,
    async () => {
      const now = Date.now();
      for (const run of await store.list()) {
        const epoch = held.get(run.runId);
        if (epoch === undefined || seen.has(run.runId) || letGo.has(run.runId)) continue;
        // Ended, or let go (hibernated), by its own host before it stopped: nothing to take over.
        if (
          run.lease?.epoch === epoch &&
          (run.status !== 'active' ||
            run.lease.state === 'released' ||
            (run.lease.state === 'handedOver' && !options.handedOver))
        ) {
          letGo.add(run.runId);
          left.delete(run.runId);
          continue;
        }
        if (!run.lease || run.lease.epoch <= epoch) {
          left.set(
            run.runId,
            `${run.runId} (${run.status} ${run.state}, lease ${JSON.stringify(run.lease)}, wakeAt ${run.wakeAt})`,
          );
          continue;
        }
        left.delete(run.runId);
        seen.set(run.runId, { runId: run.runId, by: run.lease.holder, afterMs: now - since });
      }
      return seen.size + letGo.size === held.size;
    },
    options.timeoutMs ?? 60_000,
    50,
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}; ${left.size} were not, as the store has them at ${Date.now()}: ${[...left.values()].join('; ')}`,
    );
  });
  return [...seen.values()];
}
