/** The Postgres store's rows as the server returns them, and how they become `StoredRun`s and `EventRecord`s. */
import { storedRun, type EventRecord, type OwnerInfo, type RunLease, type StoredRun } from '../store.js';

/** The lease columns of a run (all null when no host ever held it); bigints come back as strings. */
export interface LeaseColumns {
  lease_holder: string | null;
  lease_state: RunLease['state'] | null;
  lease_epoch: number | null;
  lease_expires: string | null;
  lease_renewed: string | null;
}

export interface RunRow extends LeaseColumns {
  run_id: string;
  machine: string;
  version: number;
  status: string;
  state: string;
  seq: number;
  snapshot: unknown;
  input: unknown;
  owner: OwnerInfo | null;
  created_at: string;
  updated_at: string;
  wake_at: string | null;
}

export interface EventRow {
  run_id: string;
  seq: number;
  event: EventRecord['event'];
  at: string;
  actor: string | null;
  reason: string | null;
  idempotency_key: string | null;
  before_state: string;
  after_state: string;
  /** Schema 7: the credential the event came with (`EventRecord.credential`). */
  credential: string | null;
}

export function toLease(row: LeaseColumns): RunLease | undefined {
  if (row.lease_holder === null) return undefined;
  return {
    holder: row.lease_holder,
    state: row.lease_state!,
    epoch: row.lease_epoch!,
    expiresAt: Number(row.lease_expires),
    renewedAt: Number(row.lease_renewed),
  };
}

export function toRun(row: RunRow): StoredRun {
  return storedRun({
    runId: row.run_id,
    machine: row.machine,
    version: row.version,
    status: row.status,
    state: row.state,
    snapshot: row.snapshot,
    input: row.input,
    seq: row.seq,
    owner: row.owner ?? undefined,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    wakeAt: row.wake_at === null ? null : Number(row.wake_at),
    lease: toLease(row),
  });
}

export const toEvent = (row: EventRow): EventRecord => ({
  runId: row.run_id,
  seq: row.seq,
  event: row.event,
  at: Number(row.at),
  before: row.before_state,
  after: row.after_state,
  ...(row.actor !== null && { actor: row.actor }),
  ...(row.reason !== null && { reason: row.reason }),
  ...(row.credential !== null && { credential: row.credential }),
  ...(row.idempotency_key !== null && { idempotencyKey: row.idempotency_key }),
});
