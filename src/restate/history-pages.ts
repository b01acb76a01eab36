/**
 * How a run object keeps its audit trail: in pages, so that reading a history of 1,000 entries
 * fetches about ten state keys instead of a thousand. Page n (`p:<n>`) holds seqs
 * n*ENTRIES_PER_PAGE+1 .. (n+1)*ENTRIES_PER_PAGE once full; the page being filled is the `tail` key,
 * fetched with the run by each step and written back with the new entry, and the step whose seq
 * closes a page moves it to `p:<n>`. What a step reads and writes is bounded by one page whatever
 * the history's length: an entry larger than ENTRY_INLINE_BYTES (a big event payload) stays out of
 * the pages, in a key of its own (`h:<seq>`). Entries in pages leave out the run id (the object's
 * key: a third of an entry's bytes), and so does a `history` answer to a client that names a
 * `limit` (which puts it back). A page with all its entries is stored packed: their JSON array
 * deflated, in base64 (a tenth of its size: the entries differ in little), which such an answer
 * passes on as stored, neither parsed nor written again, for the client to unpack; one that lacks
 * some (kept on their own keys) as `{ "entries": [...] }`, which is read entry by entry.
 *
 * `h:<seq>` is also how every entry was kept before pages (runs already on a user's cluster): a
 * seq that no page holds is read from its own key. Such a run's next steps fill pages from there on
 * (the page it is in holds only the seqs written since), so nothing is rewritten.
 */
import * as restate from '@restatedev/restate-sdk';
import type { EventRecord } from '../stores/store.js';
import { packPage, paged, unpackPage, withRunId, type PagedEntry } from './history-entries.js';
import { STATE } from './object-names.js';
import { readState } from './state-read.js';

/** Entries per page: what a step rewrites at most (the tail), and a tenth of a 1,000-entry history. */
export const ENTRIES_PER_PAGE = 100;
/** An entry larger than this (its JSON) is kept in a key of its own, so that a page stays small. */
export const ENTRY_INLINE_BYTES = 8 * 1024;

/** The page an entry of `seq` belongs to. */
const pageOf = (seq: number): number => Math.floor((seq - 1) / ENTRIES_PER_PAGE);

type Reader = Pick<restate.ObjectSharedContext, 'get'>;
type Writer = Pick<restate.ObjectContext, 'set' | 'clear'>;

/** A page that lacks some of its seqs (kept on their own keys). */
interface PartPage {
  readonly entries: PagedEntry[];
}

/** The page being filled, as a step fetches it beside the run. */
export const readTail = (ctx: Reader): restate.RestatePromise<PagedEntry[] | null> =>
  readState<PagedEntry[]>(ctx, STATE.tail);

/** Writes a step's entry: into the tail (`tail`: the tail as the step read it), or a key of its own when large. */
export function appendEntry(ctx: Writer, tail: readonly PagedEntry[] | null, full: EventRecord): void {
  const entry = paged(full);
  const page = pageOf(entry.seq);
  const kept = (tail ?? []).filter((earlier) => pageOf(earlier.seq) === page && earlier.seq < entry.seq);
  // A tail of an earlier page, whose closing step this code did not take (an older endpoint took it): closed now.
  const stale = new Map<number, PagedEntry[]>();
  for (const earlier of tail ?? [])
    if (pageOf(earlier.seq) < page)
      stale.set(pageOf(earlier.seq), [...(stale.get(pageOf(earlier.seq)) ?? []), earlier]);
  for (const [earlier, entries] of stale) ctx.set(STATE.page(earlier), { entries } satisfies PartPage);
  const inline = Buffer.byteLength(JSON.stringify(entry)) <= ENTRY_INLINE_BYTES;
  if (!inline) ctx.set(STATE.entry(entry.seq), full);
  const next = inline ? [...kept, entry] : kept;
  if (entry.seq % ENTRIES_PER_PAGE === 0) {
    // Every seq of the page, in order (one entry a step): stored packed, as an answer passes it on.
    if (next.length === ENTRIES_PER_PAGE) ctx.set(STATE.page(page), packPage(next));
    else if (next.length) ctx.set(STATE.page(page), { entries: next } satisfies PartPage);
    ctx.clear(STATE.tail);
  } else if (inline || kept.length !== (tail ?? []).length) {
    if (next.length) ctx.set(STATE.tail, next);
    else ctx.clear(STATE.tail);
  }
}

/** A run of entries of a history: a whole page as stored (packed: a JSON string's bytes), or entries read. */
type Piece =
  | { readonly last: number; readonly stored: Uint8Array }
  | { readonly last: number; readonly entries: PagedEntry[] };

const QUOTE = 0x22;

/** A page's entries from the value stored: packed, or a page that lacks some. */
function pageEntries(stored: Uint8Array): PagedEntry[] {
  const value = JSON.parse(decoder.decode(stored)) as string | PagedEntry[] | PartPage;
  return typeof value === 'string' ? unpackPage(value) : Array.isArray(value) ? value : value.entries;
}

/**
 * The entries after seq `after`, at most `limit` of them, of a run at seq `seq`, in order: the
 * pages and the tail that cover them fetched at once (as bytes: a whole page is passed on as
 * stored), then (older runs, large entries) the seqs none of them held, each from its own key, at
 * once too.
 */
async function readPieces(ctx: Reader, seq: number, after: number, limit: number): Promise<Piece[]> {
  const first = Math.max(after, 0) + 1;
  const last = Math.min(seq, after + limit);
  if (last < first) return [];
  const open = seq % ENTRIES_PER_PAGE === 0 ? undefined : pageOf(seq + 1);
  const from = pageOf(first);
  const reads: Array<restate.RestatePromise<Uint8Array | null>> = [];
  for (let page = from; page <= pageOf(last); page++)
    reads.push(
      ctx.get<Uint8Array>(
        page === open ? STATE.tail : STATE.page(page),
        restate.serde.binary,
      ) as restate.RestatePromise<Uint8Array | null>,
    );
  // Awaited together through the SDK's own combinator: a plain Promise.all of lazy state reads is
  // refused by restate-sdk ("awaitNext already pending") and the call retried, costing a round.
  const pages = await restate.RestatePromise.all(reads);
  const whole = new Map<number, Uint8Array>();
  const found = new Map<number, PagedEntry>();
  pages.forEach((bytes, index) => {
    if (!bytes) return;
    const page = from + index;
    const inRange = page * ENTRIES_PER_PAGE + 1 >= first && (page + 1) * ENTRIES_PER_PAGE <= last;
    if (page !== open && inRange && bytes[0] === QUOTE) {
      whole.set(page, bytes);
      return;
    }
    for (const entry of pageEntries(bytes)) if (entry.seq >= first && entry.seq <= last) found.set(entry.seq, entry);
  });
  const missing: number[] = [];
  for (let n = first; n <= last; n++) if (!whole.has(pageOf(n)) && !found.has(n)) missing.push(n);
  if (missing.length) {
    const own = await restate.RestatePromise.all(missing.map((n) => readState<EventRecord>(ctx, STATE.entry(n))));
    for (const entry of own) if (entry) found.set(entry.seq, entry);
  }
  const pieces: Piece[] = [];
  for (let page = from; page <= pageOf(last); page++) {
    const stored = whole.get(page);
    if (stored) {
      pieces.push({ last: (page + 1) * ENTRIES_PER_PAGE, stored });
      continue;
    }
    const entries: PagedEntry[] = [];
    const end = Math.min(last, (page + 1) * ENTRIES_PER_PAGE);
    for (let n = Math.max(first, page * ENTRIES_PER_PAGE + 1); n <= end; n++) {
      const entry = found.get(n);
      if (entry) entries.push(entry);
    }
    if (entries.length) pieces.push({ last: end, entries });
  }
  return pieces;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The entries after seq `after`, at most `limit` of them, of the run `ctx.key` at seq `seq`, in order, whole. */
export async function readHistory(
  ctx: Reader & { readonly key: string },
  seq: number,
  after: number,
  limit: number,
): Promise<EventRecord[]> {
  return (await readPieces(ctx, seq, after, limit)).flatMap((piece) =>
    ('stored' in piece ? pageEntries(piece.stored) : piece.entries).map((entry) => withRunId(ctx.key, entry)),
  );
}

/**
 * `{"ok":[...entries],"more":...}` as bytes: the entries after seq `after` (at most `limit`),
 * without their run id, and once past `budget.least` of them, only while the answer stays under
 * `budget.bytes`. A whole page goes in as stored, one packed string (`unpackPage`) among the entries.
 */
export async function historyAnswer(
  ctx: Reader,
  seq: number,
  after: number,
  limit: number,
  budget: { readonly least: number; readonly bytes: number },
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let bytes = 0;
  let count = 0;
  const pieces = await readPieces(ctx, seq, after, limit);
  let covered = after;
  let cut = false;
  for (const piece of pieces) {
    if (count >= budget.least && bytes > budget.bytes) {
      cut = true;
      break;
    }
    // A packed page's string as stored, or an array's inside: its bytes less the brackets.
    const inside =
      'stored' in piece ? piece.stored : encoder.encode(JSON.stringify(piece.entries.map(paged)).slice(1, -1));
    if (parts.length) parts.push(COMMA);
    parts.push(inside);
    bytes += inside.length + 1;
    count += 'stored' in piece ? ENTRIES_PER_PAGE : piece.entries.length;
    covered = piece.last;
  }
  // All it was asked for unless the budget ran out: then up to the last piece in it.
  const through = cut ? covered : Math.min(seq, after + limit);
  return Buffer.concat([OK_OPEN, ...parts, encoder.encode(`],"more":${through < seq}}`)]);
}

const OK_OPEN = encoder.encode('{"ok":[');
const COMMA = encoder.encode(',');

/** A handler's answer serde: bytes built by `historyAnswer` as they are, anything else as JSON. */
export const answerSerde: restate.Serde<unknown> = {
  contentType: 'application/json',
  serialize: (value) => (value instanceof Uint8Array ? value : encoder.encode(JSON.stringify(value))),
  deserialize: (bytes) => JSON.parse(decoder.decode(bytes)) as unknown,
};
