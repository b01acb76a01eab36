/**
 * History entries as a run object's pages keep them and its `history` answers carry them to
 * statewright's client (history-pages.ts): without the run id, which is the object's key, and a
 * whole page packed, its entries' JSON array deflated, in base64 (a tenth of its size: the entries
 * differ in little). The client puts both back; this module is all it needs of the format.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { EventRecord } from '../stores/store.js';

/** An entry as pages keep it: without the run id, which is the object's key. */
export type PagedEntry = Omit<EventRecord, 'runId'> & { readonly runId?: string };

/** `entry` with the run id `runId` first, as the step made it, if it was left out. */
export const withRunId = (runId: string, entry: PagedEntry): EventRecord =>
  entry.runId === undefined ? { runId, ...entry } : (entry as EventRecord);

/** `entry` without its run id. */
export function paged(entry: PagedEntry): PagedEntry {
  if (entry.runId === undefined) return entry;
  const { runId: _key, ...rest } = entry;
  return rest;
}

/** A whole page packed: its entries' JSON array, deflated, in base64. */
export const packPage = (entries: readonly PagedEntry[]): string =>
  deflateRawSync(JSON.stringify(entries)).toString('base64');

/** The entries of a packed page (`packPage`), as a `history` answer carries it too. */
export const unpackPage = (packed: string): PagedEntry[] =>
  JSON.parse(inflateRawSync(Buffer.from(packed, 'base64')).toString('utf8')) as PagedEntry[];
