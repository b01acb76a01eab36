/**
 * How long the clock must move for an `after` transition to fire: the delay its XState event
 * (`xstate.after.<delay>.<state id>`) names, a number of ms or the name of one of the machine's
 * `delays` (a number, or a function of the context and event).
 */
import type { AnyMachineSnapshot } from 'xstate';

export function delayOf(type: string, snapshot: AnyMachineSnapshot): number | undefined {
  const match = /^xstate\.after\.([^.]+)\./.exec(type);
  if (!match) return undefined;
  const token = match[1]!;
  if (/^\d+$/.test(token)) return Number(token);
  const delay = (snapshot.machine.implementations.delays as Record<string, unknown>)[token];
  if (typeof delay === 'number') return delay;
  if (typeof delay === 'function') {
    const ms = delay({ context: snapshot.context, event: { type } }, undefined);
    return typeof ms === 'number' ? ms : undefined;
  }
  return undefined;
}
