/**
 * A run's lease as a person is shown it (run JSON, `status`, `explain`): the stored lease with how
 * old its last heartbeat is and whether a held one has run out, read on this machine's wall clock
 * (lease times are wall clock, `RunLease`).
 */
import type { RunLease } from '../stores/store.js';

export interface HostLease extends RunLease {
  /** ms since the holder's last renewal, claim or commit (`renewedAt`). */
  readonly heartbeatAgeMs: number;
  /** Held, and past `expiresAt`: its holder stopped renewing, and any host's next sweep takes the run over. */
  readonly expired: boolean;
}

export function hostLease(lease: RunLease, now: number): HostLease {
  return {
    holder: lease.holder,
    state: lease.state,
    epoch: lease.epoch,
    expiresAt: lease.expiresAt,
    renewedAt: lease.renewedAt,
    heartbeatAgeMs: Math.max(0, now - lease.renewedAt),
    expired: lease.state === 'held' && lease.expiresAt <= now,
  };
}

/** A span as a person reads it: "850 ms", "4.2 s", "3 min", "2 h", "5 d". */
export function span(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h`;
  return `${Math.floor(ms / 86_400_000)} d`;
}
