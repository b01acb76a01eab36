/**
 * How a runtime holds its runs on its store: the one seam between the run table (the runs in
 * memory) and the store's leases. Two strategies: `LoneStoreHosting`, a store only this host uses
 * (taking a run is loading it, nothing is fenced, letting go does nothing), and
 * `SharedStoreHosting`, hosts sharing a store under leases (the sweep, claims, renewals, releases,
 * dead holders, hibernation). A host on another engine plugs in here.
 */
import type { CommitLease, OwnerInfo, StoredRun } from '../../stores/store.js';
import type { HostedRun } from '../hosted-run.js';
import type { RunFence } from '../run-context.js';
import type { SetAsideRun } from '../set-aside.js';

/** How a run hosted from the store was found: what its recovery rule is told, if it applies. */
export interface Found {
  readonly stored: StoredRun;
  /** The rule applies: the previous owner is gone (crashed, cut off, or closed without hand-over). */
  readonly recovery?: { owner: OwnerInfo | undefined; alive: boolean };
  /** Handed over by a graceful stop: its actors are adopted, the rule is skipped. */
  readonly adopted?: boolean;
}

/** What a hosting strategy sees of the run table. */
export interface HostedRuns {
  hosted(runId: string): HostedRun | undefined;
  /** The load under way of a run an event was sent to, if any. */
  loading(runId: string): Promise<HostedRun> | undefined;
  /** Every hosted run, as a copy. */
  all(): HostedRun[];
  /** Forgets `run` here, if it is the copy hosted (a newer one stays). */
  remove(run: HostedRun): void;
  setAsideOf(runId: string): SetAsideRun | undefined;
  /**
   * The run's entry if it was set aside at `seq`; one set aside at another seq (someone else has
   * committed to it since: ended it, moved it on) is forgotten, so the run is looked at again.
   */
  setAsideAt(runId: string, seq: number): SetAsideRun | undefined;
  /** The set-aside runs: the sweep claims none of them (it re-reads them now and then: `setAsideAt`). */
  passOver(): string[];
  /** Hosts a run found in the store: restores its actor and applies its recovery rule (or sets it aside, rejecting). */
  host(runId: string, found: Found): Promise<HostedRun>;
  /** `host` for a run found when the runtime starts: listed in `Runtime.restoredAtStart`; a failure is reported, never thrown. */
  restoreAtStart(runId: string, machine: string, found: Found): Promise<void>;
}

export interface Hosting extends RunFence<HostedRun> {
  /** Starts keeping the runs held in the background (lease renewals). */
  beginRenewing(): void;
  /** Hosts the runs that must move on at start: those whose host is gone, and due deadlines. */
  recover(): Promise<void>;
  /** Starts the rest of the background work: with `sweeps`, taking over runs whose host is gone; hibernation. */
  beginSweeping(sweeps: boolean): void;
  /** Takes the stored run an event was sent to, for this host to commit to (loaded; on a shared store, claimed); undefined for an unknown run. */
  take(runId: string): Promise<Found | undefined>;
  /** Holds a run this host is creating, from before its creation commit: the lease that commit is fenced by. */
  holdNew(runId: string): CommitLease | undefined;
  /** The creation commit of a run held by `holdNew` is durable. */
  created(runId: string): void;
  /** Holds the run no more, telling the store nothing (its creation was refused, it was lost). */
  forget(runId: string): void;
  /** Holds a run for a commit outside its events (a set-aside run ended by a person). */
  hold(runId: string): Promise<void>;
  /** Lets go of a run cleanly: it sleeps in the store until `wakeAt` or its next event, and any host may wake it. */
  release(runId: string, wakeAt: number | null): Promise<void>;
  /** Lets go of a run as if this host had died: the next host to take it applies its recovery rule. */
  expire(runId: string): Promise<void>;
  /** Lets go of a run it was handed and could not restore, still handed over: the next host adopts its actors. */
  handBack(runId: string, wakeAt: number | null): Promise<void>;
  /** No more background work: nothing is claimed or renewed from here on. */
  stop(): Promise<void>;
  /** Lets go of the runs a closing runtime stopped: released for the next host to adopt (`handOver`), else expired. */
  close(
    runs: ReadonlyArray<{ readonly runId: string; readonly wakeAt: number | null }>,
    handOver: boolean,
  ): Promise<void>;
}
