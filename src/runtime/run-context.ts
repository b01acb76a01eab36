/**
 * What a hosted run works with besides its own actor and queue: the clock, its owner, the store's
 * idempotency answers, the group committer, the machines, the runtime's channels, and how its
 * commits are fenced. Built once by the run table and shared by every run (hosted-run.ts).
 */
import type { Clock } from '../actor-contract/clock.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import type { CommitLease, LeaseLostError, OwnerInfo, Store, StoredRun } from '../stores/store.js';
import type { Channels } from './channels.js';
import type { GroupCommitter } from './group-commit.js';
import type { HostedMachines } from './hosted-machines.js';

/** How a run's commits are fenced on the store (the hosting strategy: see hosting/hosting.ts). */
export interface RunFence<Run> {
  /** The lease this run's commits are fenced by, or undefined on a store one host uses; throws `LeaseLostError` when it holds none. */
  commitLease(runId: string): CommitLease | undefined;
  /** A commit that also claimed the run (`CommitLease.claims`) is durable: the run is held here from now on. */
  claimCommitted(runId: string, lease: CommitLease): void;
  /** The run read back from the store (after a commit of unknown outcome). */
  reload(runId: string): Promise<StoredRun | undefined>;
  /**
   * A commit under `refused` was refused by a newer lease of this very host (its sweep claimed back
   * a lease of its own that had run out while the commit was on its way): the run stays held here
   * at that epoch, and this is the lease to commit again under. Undefined when another host holds it,
   * or this copy of the run is no longer the one hosted here (a claim replaced it).
   */
  ownNewerLease?(run: Run, refused: CommitLease, error: LeaseLostError): CommitLease | undefined;
  /** A commit was refused because another host holds the run now: the run has stopped itself (`lose`). */
  lost(run: Run, error: LeaseLostError): void;
}

/** What every hosted run works with: built once by the run table, shared by all its runs. */
export interface RunContext<Run> {
  readonly clock: Clock;
  readonly owner: OwnerInfo;
  readonly store: Pick<Store, 'findIdempotent'>;
  readonly committer: GroupCommitter;
  readonly machines: HostedMachines;
  readonly channels: Channels;
  readonly fence: RunFence<Run>;
}

/** For sends without options: one shared object, not one per event. */
export const NO_OPTIONS: SendOptions = Object.freeze({});
