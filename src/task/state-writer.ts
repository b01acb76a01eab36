/**
 * Keeps STATE.json in step with a task run: after each commit (told by `rt.subscribe`, so never
 * before the store has it) the run's newest committed row is written, one write at a time. Commits
 * that land while a write is in flight are folded into one more write of the newest row, so the
 * file ends at the last commit without queueing a write per step.
 */
import { createActor } from 'xstate';
import { taskMachine, taskView, type TaskContext, type TaskView } from '../../machines/task/index.js';
import type { Runtime } from '../runtime/runtime.js';
import { writeStateFile, type StateFile } from './state-file.js';

export interface StateFileWriter {
  /** Resolves once every commit seen so far is in the file; rejects with the last write's error. */
  idle(): Promise<void>;
  /** Writes the newest committed row now (for commits made before the writer listened). */
  refresh(): void;
  stop(): void;
}

/** The STATE.json content of a persisted task snapshot (what the store keeps). */
export function taskOfPersisted(persisted: unknown): { view: TaskView; context: TaskContext } {
  // Restoring without starting builds the machine snapshot (state nodes, history) and runs nothing.
  const snapshot = createActor(taskMachine, { snapshot: persisted as never }).getSnapshot();
  return { view: taskView(snapshot), context: snapshot.context };
}

export function writeStateFileOnCommit(rt: Runtime, runId: string, path: string): StateFileWriter {
  let pending = false;
  let writing: Promise<void> | undefined;
  let failure: Error | undefined;

  const writeNewest = async (): Promise<StateFile | undefined> => {
    const row = await rt.store.load(runId);
    if (!row) return undefined;
    const { view, context } = taskOfPersisted(row.snapshot);
    return writeStateFile(path, view, {
      now: rt.clock.now(),
      seq: row.seq,
      ...(context.lease && { lease: context.lease, leaseExpired: context.leaseExpired }),
    });
  };

  const drain = async () => {
    while (pending) {
      pending = false;
      try {
        await writeNewest();
        failure = undefined;
      } catch (error) {
        failure = error as Error;
      }
    }
    writing = undefined;
  };

  const schedule = () => {
    pending = true;
    writing ??= drain();
  };
  const unsubscribe = rt.subscribe((step) => {
    if (step.runId === runId) schedule();
  });

  return {
    async idle() {
      while (writing) await writing;
      if (failure) throw failure;
    },
    refresh: schedule,
    stop: unsubscribe,
  };
}
