/**
 * What the runtime knows of a lifecycle: its machine, version, recovery hook, migrations and index
 * keys. The registry (`machines/index.ts`) lists the lifecycles; the runtime and the machines'
 * recovery hooks import these types from here, never the registry, so nothing imports it back.
 */
import type { AnyStateMachine } from 'xstate';

export interface Lifecycle<M extends AnyStateMachine = AnyStateMachine> {
  readonly machine: M;
  /**
   * Bumped whenever a change makes stored snapshots of the previous definition unsafe to restore
   * (a state renamed or removed, context reshaped). Stored runs carry it.
   */
  readonly version: number;
  readonly summary: string;
  /**
   * Called for every non-terminal run restored when a runtime starts: the events to apply to it
   * (for example "the process that owned you is gone: you crashed"). Pure: what it needs to know
   * about the outside world arrives in `run`.
   */
  readonly recover?: (run: RecoveringRun) => Array<{ type: string; [key: string]: unknown }>;
  /** Upgrades a stored snapshot from version N (the key) to N + 1. */
  readonly migrations?: Readonly<Record<number, (persistedSnapshot: any) => any>>;
  /**
   * Index keys derived from a run's snapshot, by name, for queries that must not load every run
   * ("active sessions, most recent activity first"). The runtime computes them at every commit; a
   * store with indexes (SQLite) keeps them in the same transaction, others are scanned.
   */
  readonly indexes?: Readonly<Record<string, IndexKey>>;
}

/** One index key: the run's value (null: not listed under this key) and the order to list by. */
export interface IndexKey {
  readonly order: 'asc' | 'desc';
  readonly of: (snapshot: { value: unknown; context: any; status: string }) => number | null;
}

/** What a recovery hook learns about a run restored from its last committed snapshot. */
export interface RecoveringRun {
  readonly runId: string;
  /** The persisted XState snapshot (value, context, status). */
  readonly snapshot: { value: unknown; context: any; status: string };
  /** The runtime that last committed to the run, and whether its process is still alive. */
  readonly previousOwner: { id: string; pid: number; host: string; alive: boolean } | undefined;
  /** The restoring runtime's clock reading. */
  readonly now: number;
}

export type Lifecycles = Readonly<Record<string, Lifecycle>>;
