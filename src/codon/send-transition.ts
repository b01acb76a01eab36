import type { EventObject } from 'xstate';
import type { PlannedTransition } from '../../machines/codon/types.js';
import type { RunHandle } from '../actor-contract/run-handle.js';

/**
 * Sends a planned transition as the seed's `CodonTransitioned`. `ifAccepted`: if the codon has
 * already left `from` (skipped meanwhile), the news is stale and is dropped, not an error.
 */
export function sendTransition(
  run: RunHandle,
  codonId: string,
  transition: PlannedTransition,
  idempotencyKey: string,
  actor: string,
  reason?: string,
): void {
  const event = { type: 'CodonTransitioned', data: { runId: run.runId, codonId, ...transition } } as EventObject;
  run.send(event, { actor, idempotencyKey, ifAccepted: true, ...(reason && { reason }) });
}
