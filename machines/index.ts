/**
 * The registry of every lifecycle. The runtime, the tests, the diagrams and the CLI iterate it,
 * so a new lifecycle needs one line here and nothing else.
 */
import type { AnyStateMachine } from 'xstate';
import { codonMachine, codonRunMachine, recoverCodon, recoverCodonRun } from './codon.js';
import { executionMachine } from './execution.js';
import { reviewLoopMachine } from './review-loop.js';
import { recoverTask, taskMachine, taskMigrations } from './task.js';

import { recoverSession, sessionIndexes, sessionMachine } from './session.js';

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

export const lifecycles = {
  execution: {
    machine: executionMachine,
    version: 1,
    summary: 'kici run, job and step execution: 11 states, 16 events, 25 transitions',
  },
  'review-loop': {
    machine: reviewLoopMachine,
    version: 1,
    summary: 'agentpair review loop: a primary agent works, a reviewer reviews, until DONE/PASS, FAIL or the iteration limit',
  },
  task: {
    machine: taskMachine,
    version: 2,
    migrations: taskMigrations,
    summary: 'ferrus supervisor/executor task: checks, consultation, human questions, review, with retry and review budgets, leases',
    recover: recoverTask,
  },
  session: {
    machine: sessionMachine,
    version: 1,
    summary: 'hld Claude Code session: 5 states, 7 status transitions, approvals, start timeout, orphan recovery',
    recover: recoverSession,
    indexes: sessionIndexes,
  },
  codon: {
    machine: codonMachine,
    version: 1,
    summary: 'Hankweave codon: rig setup, agent process, sentinels, costs and git checkpoints in 8 states',
    recover: recoverCodon,
  },
  'codon-run': {
    machine: codonRunMachine,
    version: 1,
    summary: 'Hankweave run: the run level its codons belong to, running until RunCompleted, RunFailed or RunCrashed',
    recover: recoverCodonRun,
  },
} satisfies Record<string, Lifecycle>;

export type LifecycleName = keyof typeof lifecycles;
export type Lifecycles = Readonly<Record<string, Lifecycle>>;

export * from './execution.js';
export * from './review-loop.js';
export * from './task.js';
export * from './session.js';
export * from './codon.js';

