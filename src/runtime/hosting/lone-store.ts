import type { CommitLease, LeaseLostError, OwnerInfo, Store, StoredRun } from '../../stores/store.js';
import type { Channels } from '../channels.js';
import type { HostedRun } from '../hosted-run.js';
import type { Found, HostedRuns, Hosting } from './hosting.js';
import { isOtherOwnerAlive } from './live-owners.js';

/**
 * Hosting on a store only this host uses (no `Store.leases`): a run is taken by loading it, its
 * commits are fenced by nothing but their seq, and letting go of a run tells the store nothing.
 */
export class LoneStoreHosting implements Hosting {
  constructor(
    private readonly store: Store,
    private readonly owner: OwnerInfo,
    private readonly runs: HostedRuns,
    private readonly channels: Channels,
  ) {}

  /** Restores every non-terminal run that no live process owns. */
  async recover(): Promise<void> {
    for (const stored of await this.store.list({ status: 'active' })) {
      const owner = stored.owner;
      if (owner !== undefined && isOtherOwnerAlive(owner, this.owner)) continue; // another live runtime hosts it
      await this.runs.restoreAtStart(stored.runId, stored.machine, { stored, recovery: { owner, alive: false } });
    }
  }

  async take(runId: string): Promise<Found | undefined> {
    const stored = await this.store.load(runId);
    return stored && { stored };
  }

  reload(runId: string): Promise<StoredRun | undefined> {
    return this.store.load(runId);
  }

  commitLease(): CommitLease | undefined {
    return undefined;
  }

  lost(run: HostedRun, error: LeaseLostError): void {
    this.runs.remove(run);
    this.channels.log(
      run.runId,
      'warn',
      `no longer hosted here, its actors let go of their work for the new holder: ${error.message}`,
    );
  }

  holdNew(): CommitLease | undefined {
    return undefined;
  }

  beginRenewing(): void {}
  beginSweeping(): void {}
  claimCommitted(): void {}
  created(): void {}
  forget(): void {}
  async hold(): Promise<void> {}
  async release(): Promise<void> {}
  async expire(): Promise<void> {}

  async handBack(): Promise<void> {}
  async stop(): Promise<void> {}
  async close(): Promise<void> {}
}
