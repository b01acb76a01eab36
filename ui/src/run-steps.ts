import { api, type Explanation, type HistoryEntry, type RunJson } from './api.js';
import type { LiveStep, StepUpdate } from './steps.js';

/** What the run page shows: the run, its audit trail and its explanation. */
export interface RunData {
  readonly run: RunJson;
  readonly events: HistoryEntry[];
  readonly explanation: Explanation | Error;
}

/**
 * How the run page takes in a step of its run (`useLiveData`'s `apply`): the run from the step's
 * payload at once, then one read of what the payload lacks: the audit trail's entry (the step
 * carries no actor or reason) and the explanation (what the run accepts now is the server's to
 * say). A step it has seen is ignored; a step past the next one (steps were missed), or one without
 * the run, reloads everything.
 */
export const runStep =
  (id: string) =>
  <D extends RunData>(data: D, step: LiveStep): StepUpdate<D> => {
    if (step.seq <= data.run.seq) return 'ignore';
    if (!step.run || step.seq !== data.run.seq + 1) return 'reload';
    // The step's run is the stored row; whether this host set it aside is the page's to keep.
    const run: RunJson = { ...step.run, ...(data.run.setAside && { setAside: data.run.setAside }) };
    return {
      data: { ...data, run },
      follow: async () => {
        const [events, explanation] = await Promise.all([
          api.history(id),
          api.explain(id).catch((error: Error) => error),
        ]);
        return (now) => ({ ...now, events, explanation });
      },
    };
  };
