/**
 * Whether several hosts share a store: more than one live process holds runs of it now, or is
 * known to host it (the asking host itself, the serves whose server files lie beside it). Only then
 * do `status`, `explain` and the view speak of hosts, epochs, heartbeats and sleeping runs; a
 * store one `serve` hosts is just "the host" to its user (`--verbose` says it all the same).
 */
import { isProcessAlive } from '../os/process-identity.js';
import type { OwnerInfo, Store } from '../stores/store.js';

/** The distinct live holders among `holders`: a process of this machine that ended holds nothing any more. */
export function liveHolders(holders: ReadonlyArray<{ readonly owner: OwnerInfo }>): Set<string> {
  return new Set(holders.filter(({ owner }) => isProcessAlive(owner)).map(({ owner }) => owner.id));
}

/** Asked again at most this often per store: a runs list explains each of its runs. */
const FRESH_MS = 1000;
const asked = new WeakMap<object, { readonly at: number; readonly holders: Promise<Set<string>> }>();

/**
 * Whether more than one live host holds runs of `store` now or is among `hosts` (ids of hosts
 * known to be live on it, holding runs or not); a store without leases has one host.
 */
export async function severalHostsShare(store: Pick<Store, 'leases'>, hosts: Iterable<string> = []): Promise<boolean> {
  const leases = store.leases;
  if (!leases) return false;
  const now = Date.now();
  let last = asked.get(leases);
  if (!last || now - last.at >= FRESH_MS) {
    last = { at: now, holders: leases.holders().then(liveHolders) };
    asked.set(leases, last);
  }
  const live = new Set([...(await last.holders), ...hosts]);
  return live.size > 1;
}
