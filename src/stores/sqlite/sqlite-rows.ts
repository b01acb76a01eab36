import type { RunLease } from '../store.js';

/** A row of the SQLite store's `runs` table (see sqlite-schema.ts), as better-sqlite3 reads it. */
export interface RunRow {
  run_id: string;
  /** The bytes of `run_id` as hex, where a query asks for them (see sqlite-text.ts). */
  run_id_hex?: string | null;
  machine: string;
  version: number;
  status: string;
  state: string;
  seq: number;
  snapshot: string;
  input: string;
  owner: string | null;
  created_at: number;
  updated_at: number;
  last_event: number | null;
  created_checksum: number | null;
  checksum: number | null;
  lease_holder: string | null;
  lease_state: string | null;
  lease_epoch: number | null;
  lease_expires: number | null;
  lease_renewed: number | null;
  wake_at: number | null;
  lease_checksum: number | null;
}

/** A row of the `events` table: one event of the audit trail, and the newest one's copy of its run's row. */
export interface EventRow {
  id: number;
  run_id: string;
  seq: number;
  prev: number | null;
  next: number | null;
  event: string;
  at: number;
  actor: string | null;
  reason: string | null;
  idempotency_key: string | null;
  before_state: string;
  after_state: string;
  result: string | null;
  /** Schema 9: the credential the event came with (`EventRecord.credential`). */
  credential: string | null;
  row_state: string | null;
  row_snapshot: string | null;
  row_updated_at: number | null;
  checksum: number | null;
  row_checksum: number | null;
}

/** The lease a (checked) row holds, undefined when the run was never leased. */
export function storedLease(row: RunRow): RunLease | undefined {
  if (row.lease_state === null) return undefined;
  return {
    holder: row.lease_holder!,
    state: row.lease_state as RunLease['state'],
    epoch: row.lease_epoch!,
    expiresAt: row.lease_expires!,
    renewedAt: row.lease_renewed!,
  };
}
