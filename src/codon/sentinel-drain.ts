/**
 * Sentinel draining, the codon's `completing-sentinels` state (the machine's `sentinelDrain`
 * actor). Waits for every loaded sentinel's queue to drain and reports `sentinels.drained` with each
 * sentinel's final stats (unloaded, "codon-complete"). If the absolute deadline comes first, the
 * sentinels still working are unloaded ("drain-timeout") and it reports `sentinels.timedOut`
 * naming them, which fails the codon. The deadline is on the runtime's clock, so a restored codon
 * times out when it would have.
 */
import { fromCallback, type EventObject } from 'xstate';
import type { SentinelDrainInput } from '../../machines/codon/actor-inputs.js';
import type { SentinelState } from '../../machines/codon/types.js';
import { setTimeoutAt } from '../actor-contract/clock.js';
import type { ActorFactory } from '../actor-contract/run-handle.js';
import type { Sentinel } from './sentinel.js';

/** The live sentinels of a run (a codon run of the runtime is one codon). */
export type SentinelDirectory = (runId: string) => readonly Sentinel[];

export function createSentinelDrain(directory: SentinelDirectory): ActorFactory {
  return (run) =>
    fromCallback<EventObject, SentinelDrainInput>(({ input }) => {
      const live = directory(run.runId);
      const found = input.sentinels.map((last) => ({ last, sentinel: live.find((s) => s.id === last.id) }));
      const pending = new Set(found.filter((f) => f.sentinel).map((f) => f.last.id));
      let settled = false;

      const finish = (timedOut: boolean) => {
        if (settled) return;
        settled = true;
        cancelTimer();
        const late = timedOut ? [...pending] : [];
        const sentinelStates: SentinelState[] = found.map(({ last, sentinel }) => {
          if (!sentinel) {
            // Sentinels live in memory: after a restart there is nothing left to drain.
            run.log('warn', `sentinel '${last.id}' is not loaded here; reporting its last recorded state`);
            return {
              ...last,
              status: 'unloaded',
              unloadReason: 'fatal-error',
              unloadedAt: new Date(run.clock.now()).toISOString(),
            };
          }
          sentinel.unload(pending.has(last.id) ? 'drain-timeout' : 'codon-complete');
          return sentinel.state();
        });
        const totalCost = sentinelStates.reduce((sum, s) => sum + s.totalCost, 0);
        const event = timedOut
          ? { type: 'sentinels.timedOut', sentinelStates, totalCost, pending: late, timeoutMs: input.timeoutMs }
          : { type: 'sentinels.drained', sentinelStates, totalCost };
        run.send(event as EventObject, {
          actor: 'sentinels',
          idempotencyKey: `sentinels:${input.deadline}`,
          ifAccepted: true,
          reason: timedOut
            ? `sentinels ${late.join(', ')} did not drain in ${input.timeoutMs} ms`
            : 'sentinel queues drained',
        });
      };

      const cancelTimer = setTimeoutAt(run.clock, input.deadline, () => finish(true));
      for (const { last, sentinel } of found) {
        void sentinel?.drained().then(() => {
          pending.delete(last.id);
          if (pending.size === 0) finish(false);
        });
      }
      if (pending.size === 0) queueMicrotask(() => finish(false));
      return () => {
        settled = true;
        cancelTimer();
      };
    });
}
