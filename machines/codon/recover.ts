/**
 * Crashed-codon detection (seed: detectCrashedRuns), as the runtime's recovery hook; the run
 * level's own (RunCrashed) is machines/codon-run/recover.ts. The runtime restores a run only when
 * the process that last committed to it is gone, and commits the events returned here before any
 * deferred side effect of the restored state runs. So a codon whose host died fails with "Server
 * crashed" (its partial cost kept) before its restored agent actor could spawn anything: no agent
 * runs twice. Every restored codon is judged, those of the run that was current included.
 */
import type { EventObject } from 'xstate';
import type { CodonTransitionedEvent } from './events.js';
import { crashMetadata } from './record.js';
import { codon } from './status.js';
import type { ActiveCodonStatus } from './types.js';

/** What the hook reads of a restored run (the registry's `RecoveringRun`). */
interface Restored {
  readonly snapshot: { value: unknown; context: any; status: string };
  readonly previousOwner: { alive: boolean } | undefined;
  readonly now: number;
}

/** A codon left active by a dead host: CodonTransitioned to failed, "Server crashed". */
export function recoverCodon(run: Restored): EventObject[] {
  const { value, context, status } = run.snapshot;
  if (status !== 'active' || run.previousOwner?.alive || !codon.isState(value) || codon.isTerminal(value)) return [];
  const from = value as ActiveCodonStatus;
  const crash: CodonTransitionedEvent = {
    type: 'CodonTransitioned',
    data: { runId: context.runId, codonId: context.codon.codonId, from, to: 'failed', metadata: crashMetadata(from) },
    at: run.now,
  };
  return [crash];
}
