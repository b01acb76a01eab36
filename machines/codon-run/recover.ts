/**
 * Crashed-run detection (seed: detectCrashedRuns, RunCrashed), as the runtime's recovery hook: a
 * run whose host died is marked crashed when it is restored. Unlike the real project, the run that
 * was current when the process died is caught too: every restored run is judged, the current one
 * included. The codons of the run fail by their own hook (machines/codon/recover.ts).
 */
import type { EventObject } from 'xstate';
import type { CodonRunLevelEvent } from './events.js';

/** What the hook reads of a restored run (the registry's `RecoveringRun`). */
interface Restored {
  readonly snapshot: { value: unknown; context: any; status: string };
  readonly previousOwner: { alive: boolean } | undefined;
  readonly now: number;
}

/** A run left running by a dead host: RunCrashed, detected now. */
export function recoverCodonRun(run: Restored): EventObject[] {
  const { value, context, status } = run.snapshot;
  if (status !== 'active' || run.previousOwner?.alive || value !== 'running') return [];
  const crash: CodonRunLevelEvent = {
    type: 'RunCrashed',
    data: { runId: context.runId, detectedAt: new Date(run.now).toISOString(), lastCodonStatus: 'unknown' },
    at: run.now,
  };
  return [crash];
}
