import { setTimeout as sleep } from 'node:timers/promises';
import type { Runtime } from '../../runtime/index.js';
import type { ReviewLoops } from '../../review-loop/index.js';
import type { SessionDaemon } from '../../session/index.js';
import { invocation } from '../invocation.js';

/** What each part of the demo drives with, and how it talks to the person watching. */
export interface DemoContext {
  readonly runtime: Runtime;
  readonly sessions: SessionDaemon;
  readonly reviewLoops: ReviewLoops;
  /** Where the demo's agents work (a folder each, under the store's home). */
  readonly workDir: string;
  /** The pause between two steps, in ms (the stand-in agents take it between their messages). */
  readonly thinkMs: number;
  /** Where the stand-in agents are (examples/agents/ of the package). */
  readonly agents: string;
  print(line: string): void;
  /** A command to paste, as statewright is run here (`npx statewright ...` in a local install), with the demo's store. */
  hint(command: string): string;
  /** A moment to watch between two steps; ends at once when the demo stops. */
  pause(): Promise<void>;
  stopping(): boolean;
  /** Calls `listener` when the demo stops; returns the function that cancels that. */
  onStop(listener: () => void): () => void;
  /**
   * Work that goes on after the demo has settled (a script that continues once a person has
   * acted): the demo waits for it when it stops, and its failure is the demo's.
   */
  later(work: Promise<void>): void;
}

export function demoContext(
  options: Pick<DemoContext, 'runtime' | 'sessions' | 'reviewLoops' | 'agents' | 'workDir' | 'thinkMs'> & {
    store?: string;
    print: (line: string) => void;
  },
) {
  const run = invocation();
  const stopListeners = new Set<() => void>();
  const pending: Array<Promise<void>> = [];
  const stop = new AbortController();
  const context: DemoContext = {
    runtime: options.runtime,
    sessions: options.sessions,
    reviewLoops: options.reviewLoops,
    workDir: options.workDir,
    thinkMs: options.thinkMs,
    agents: options.agents,
    print: options.print,
    hint: (command) => `${run} ${command}${options.store ? ` --store ${options.store}` : ''}`,
    pause: () =>
      sleep(options.thinkMs * (0.5 + Math.random()), undefined, { signal: stop.signal }).catch(() => undefined),
    stopping: () => stop.signal.aborted,
    onStop(listener) {
      if (stop.signal.aborted) {
        listener();
        return () => {};
      }
      stopListeners.add(listener);
      return () => void stopListeners.delete(listener);
    },
    later(work) {
      pending.push(work);
    },
  };
  return {
    context,
    /** Stops the drivers and waits for what they left going. */
    async stop() {
      stop.abort();
      for (const listener of stopListeners) listener();
      stopListeners.clear();
      while (pending.length) await Promise.all(pending.splice(0));
    },
  };
}
