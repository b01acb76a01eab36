import { DEFAULT_LEASE_TTL_MS } from './config.js';

/**
 * Version 2 added the lease to the context. A task stored by version 1 has no lease, so it gains
 * an empty one with ferrus's default TTL (the TTL of ferrus.toml reaches only tasks started after).
 */
export const taskMigrations = {
  1: (persisted: { context: Record<string, unknown> }) => ({
    ...persisted,
    context: {
      leaseTtlMs: DEFAULT_LEASE_TTL_MS,
      lease: undefined,
      leaseExpired: false,
      checkRequestedBy: undefined,
      ...persisted.context,
    },
  }),
};
