import type { StateValue } from 'xstate';
import type { Commit, StoredRun } from '../stores/store.js';

/** What callers see of a run: its committed row plus the state value and context, read out. */
export interface RunSnapshot extends StoredRun {
  readonly value: StateValue;
  readonly context: any;
}

export function toRunSnapshot(run: StoredRun): RunSnapshot {
  const snapshot = run.snapshot as { value: StateValue; context: unknown };
  return {
    runId: run.runId,
    machine: run.machine,
    version: run.version,
    status: run.status,
    state: run.state,
    snapshot,
    input: run.input,
    seq: run.seq,
    owner: run.owner,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    ...(run.wakeAt !== undefined && { wakeAt: run.wakeAt }),
    ...(run.lease !== undefined && { lease: run.lease }),
    value: snapshot.value,
    context: snapshot.context,
  };
}

/** Told to subscribers once a step is durable. */
export interface CommittedStep {
  readonly runId: string;
  readonly machine: string;
  readonly seq: number;
  /** Absent for the step that started the run. */
  readonly event?: { type: string; [key: string]: unknown };
  readonly before?: string;
  readonly after: string;
  readonly snapshot: RunSnapshot;
}

/** The step a listener is told of for `commit`, an event's step, with the run as `view` shows it. */
export function committedStep(commit: Commit, view: RunSnapshot): CommittedStep {
  const { run, event } = commit;
  return {
    runId: run.runId,
    machine: run.machine,
    seq: run.seq,
    event: event!.event,
    before: event!.before,
    after: event!.after,
    snapshot: view,
  };
}
