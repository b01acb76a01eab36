/**
 * Index keys: the seed's three queries (active sessions, terminal sessions, sessions awaiting
 * input), as sort values derived from a snapshot (the registry's `indexes`).
 */
import type { SessionContext } from './context.js';
import { session } from './status.js';

type SnapshotView = { value: unknown; context: SessionContext };

/** When the oldest pending approval of a waiting session was requested, or null. */
function awaitingSince(snapshot: SnapshotView): number | null {
  if (snapshot.value !== 'waiting_input') return null;
  const pending = snapshot.context.approvals.filter((a) => a.status === 'pending').map((a) => a.requested_at);
  return pending.length ? Math.min(...pending) : null;
}

/**
 * The keys the seed's three queries are read by. The runtime computes them at every commit and the
 * SQLite store keeps them in an indexed side table in the same transaction, so each query is an
 * index walk instead of a scan of every session's snapshot; other stores answer by scanning.
 */
export const sessionIndexes = {
  /** Active sessions, most recent activity first. */
  active_by_activity: {
    order: 'desc',
    of: (s: SnapshotView) =>
      session.isState(s.value) && !session.isTerminal(s.value) ? s.context.last_activity_at : null,
  },
  /** Terminal sessions, most recently completed first. */
  terminal_by_completion: {
    order: 'desc',
    of: (s: SnapshotView) => (session.isState(s.value) && session.isTerminal(s.value) ? s.context.completed_at : null),
  },
  /** Sessions with a pending approval, the longest waiting first. */
  awaiting_input: { order: 'asc', of: awaitingSince },
} as const;
