/** What every system under comparison offers the benchmark: durable steps, and workflows that wait. */

export type StoreKind = 'postgres' | 'sqlite';

/** One system opened on a fresh store of its own. */
export interface OpenSystem {
  /**
   * Creates `count` new workflows and returns how to take one durable step on the i-th of them:
   * the returned promise resolves once that step is durable, as the system promises it.
   */
  workflows(count: number): Promise<(i: number) => Promise<void>>;
  /** Closes connections and drops what the system created (schema, files). */
  close(): Promise<void>;
}

/** A contender of the throughput tables. */
export interface System {
  /** As printed in the table, e.g. "LangGraph, durability sync". */
  name: string;
  store: StoreKind;
  /** The row whose steps/s the ratio column divides by (statewright on the same store). */
  reference?: boolean;
  open(): Promise<OpenSystem>;
}

/**
 * Workflows that wait for an event that never comes, for the idle-memory and restart columns. Each
 * phase runs in a process of its own (`idle.ts`): one opens a fresh store, puts workflows to wait and
 * exits without closing anything, as a process that dies does; the next recovers on that store.
 */
export interface Sleepers {
  /** A fresh store's location: a schema name or a file. */
  freshLocation(): string;
  /** Opens the system on the fresh store at `location`. */
  open(location: string): Promise<{
    /** Puts `count` more workflows to wait; resolves once each is waiting. */
    wait(count: number): Promise<void>;
  }>;
  /**
   * Opens the system on `location`, which holds `count` waiting workflows, and resolves once it is
   * ready to take an event for any of them (each system's own notion; see bench/RESULTS.md). Resolves
   * with a check, run after the clock stops, that the `count` workflows are there and waiting.
   */
  recover(location: string, count: number): Promise<() => Promise<void>>;
  drop(location: string): Promise<void>;
}
