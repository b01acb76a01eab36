/**
 * Which owners of runs are alive, as far as this machine can tell: the runtimes open in this very
 * process, and other processes on this host by pid and start time. An owner on another host is
 * counted alive; its lease running out is what tells that it is gone.
 */
import type { OwnerInfo } from '../../stores/store.js';
import { isProcessAlive } from '../../os/process-identity.js';

/** Owners of the runtimes open in this process: a closed one's runs may be taken over at once. */
export const openOwners = new Set<string>();

/** Whether `owner` (who committed to a run) is a live runtime other than `self`. */
export function isOtherOwnerAlive(owner: OwnerInfo, self: OwnerInfo): boolean {
  if (owner.id === self.id) return false;
  // In this very process the pid says nothing: a runtime closed here is gone, one open is not.
  const inThisProcess = owner.pid === self.pid && owner.host === self.host;
  return inThisProcess ? openOwners.has(owner.id) : isProcessAlive(owner);
}

/** The holders among `holders` that are dead processes of this machine (or closed runtimes of this one), for a claim's `takeFrom`. */
export function deadHolders(holders: ReadonlyArray<{ readonly owner: OwnerInfo }>, self: OwnerInfo): string[] {
  return holders
    .filter(({ owner }) => owner.id !== self.id && owner.host === self.host && !isOtherOwnerAlive(owner, self))
    .map(({ owner }) => owner.id);
}
