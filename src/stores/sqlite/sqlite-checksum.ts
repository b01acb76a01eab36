import { crc32 } from 'node:zlib';
import type Database from 'better-sqlite3';
import { asWritten, rawText } from './sqlite-text.js';

/** A column value as better-sqlite3 hands it over. */
export type ColumnValue = string | number | bigint | null | Uint8Array;

/**
 * CRC-32 of a row's columns, each tagged with its type (and a string with its length), so a value
 * that changed, moved to the next column, or changed type (a damaged record header) gives another
 * sum; a CRC finds any change of up to 32 bits in a row. One call of node:zlib's native crc32
 * over the joined text, about as costly as the JSON of a commit's snapshot (measured in
 * docs/reliability.md); it detects damage, not tampering.
 */
export function checksum(...values: ColumnValue[]): number {
  let text = '';
  for (const value of values) {
    if (typeof value === 'string') text += `\u0000s${value.length}:${value}`;
    else if (typeof value === 'number' || typeof value === 'bigint') text += `\u0000i${value}`;
    else if (value === null) text += '\u0000n';
    // A blob (never written by the store): its bytes as hex, so it differs from any text.
    else text += `\u0000b${Buffer.from(value).toString('hex')}`;
  }
  return crc32(text);
}

/*
 * What each checksum covers. Each function and the column list beside it (which the schema
 * conversion in sqlite-schema.ts hands to SQL) name the same columns in the same order.
 */

/** A run's columns that never change. */
export const RUN_CREATED_SUM = 'run_id, machine, input, created_at';
export const runCreatedSum = (runId: string, machine: string, input: string, createdAt: number) =>
  checksum(runId, machine, input, createdAt);

/** A run's checkpoint: the rest of its `runs` row. */
export const RUN_ROW_SUM = 'run_id, version, status, state, seq, snapshot, owner, updated_at, last_event';
export const runRowSum = (
  runId: string,
  version: number,
  status: string,
  state: string,
  seq: number,
  snapshot: string,
  owner: string | null,
  updatedAt: number,
  lastEvent: number | null,
) => checksum(runId, version, status, state, seq, snapshot, owner, updatedAt, lastEvent);

/**
 * An event as the audit trail holds it, with the link to the one before (`next` and the row copy
 * change later). Its credential (schema 9) is summed after the rest when it has one, so an event
 * written before the column keeps its sum; `EVENT_SUM` is what version 5 summed, in SQL.
 */
export const EVENT_SUM =
  'run_id, seq, prev, event, at, actor, reason, idempotency_key, before_state, after_state, result';
export const eventSum = (
  runId: string,
  seq: number,
  prev: number | null,
  event: string,
  at: number,
  actor: string | null,
  reason: string | null,
  idempotencyKey: string | null,
  before: string,
  after: string,
  result: string | null,
  credential: string | null,
) =>
  credential === null
    ? checksum(runId, seq, prev, event, at, actor, reason, idempotencyKey, before, after, result)
    : checksum(runId, seq, prev, event, at, actor, reason, idempotencyKey, before, after, result, credential);

/** The copy of its run's row that the newest event carries. */
export const EVENT_ROW_SUM = 'run_id, seq, row_state, row_snapshot, row_updated_at';
export const eventRowSum = (
  runId: string,
  seq: number,
  state: string | null,
  snapshot: string | null,
  updatedAt: number | null,
) => checksum(runId, seq, state, snapshot, updatedAt);

/**
 * A run's lease and its timer index entry. Apart from `RUN_ROW_SUM` because they change apart from
 * the row: `renew` and `release` rewrite them for many runs in one statement, which computes this
 * sum in SQL (`sqlSum`) without reading each run's snapshot.
 */
export const LEASE_SUM = 'run_id, lease_holder, lease_state, lease_epoch, lease_expires, lease_renewed, wake_at';
export const leaseSum = (
  runId: string,
  holder: string | null,
  state: string | null,
  epoch: number | null,
  expires: number | null,
  renewed: number | null,
  wakeAt: number | null,
) => checksum(runId, holder, state, epoch, expires, renewed, wakeAt);

/**
 * The SQL that computes the checksum of `columns` in SQL, whose first is a `run_id`: handed its
 * bytes too where they may not read back as written (a lone surrogate, see sqlite-text.ts), so the
 * sum is over the id the row was written with, as the one computed here.
 */
export const sqlSum = (columns: string) => `statewright_checksum(${rawText('run_id')}, ${columns})`;

/** Makes `checksum` callable from SQL on this connection, as `sqlSum` calls it. */
export function registerChecksum(db: Database.Database): void {
  db.function(
    'statewright_checksum',
    { varargs: true, deterministic: true },
    (hex: unknown, runId: unknown, ...values: unknown[]) =>
      checksum(asWritten(runId as string, hex as string | null), ...(values as ColumnValue[])),
  );
}
