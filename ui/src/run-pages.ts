import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, type RunJson, type Step } from './api.js';
import { useResync, useSteps } from './steps.js';

/** How many runs a page of the list holds: the first one, and each "more". */
export const PAGE_SIZE = 50;
/** The most runs the server gives in one page. */
const MAX_PAGE = 1000;

export interface ListFilter {
  machine: string;
  /** XState's status, as the server filters (see run-status.ts `statusQuery`). */
  status: string;
  /** The status word shown: with `keep`, which runs of `status` the list keeps (part of the list's identity). */
  word?: string;
  state: string;
  /** Part of the run id (the server's `q`). */
  q: string;
  /** Only the runs waiting for a person (the server's `waitsForPerson`, a scan budget a page). */
  waitsForPerson: boolean;
}

/** Which runs of a page the list keeps (a status word the server does not filter on): the rest are read past. */
export type Keep = (run: RunJson) => boolean;

/** How many runs a list with `keep` reads at least before it shows fewer than a page. */
const KEEP_SCAN = 2 * MAX_PAGE;

/** What the list shows: the runs loaded so far and whether more follow; `runs` undefined while the first page loads. */
export interface RunPages {
  runs?: RunJson[];
  more: boolean;
  loadingMore: boolean;
  /** With `waitsForPerson`: how many runs the server read so far to find those shown. */
  scanned: number;
  error?: Error;
}

interface List {
  readonly key: string;
  readonly filter: ListFilter;
  runs: RunJson[];
  next: string | null;
  scanned: number;
  /** Every read of this list, one after another: a "more" never appends to a list read again under it. */
  queue: Promise<void>;
  /** A read from the top waits in the queue: steps arriving meanwhile need no other. */
  refreshQueued: boolean;
}

/**
 * The first `count` runs of `filter`, from the top, in pages the server gives (at most `MAX_PAGE` a
 * page). With `waitsForPerson`, each page reads a scan budget of runs: the reading stops too once
 * it read as many as `scanned` (what was read before), so a list with few waiting runs is not read
 * whole; "more" goes on.
 */
async function fromTop(
  filter: ListFilter,
  count: number,
  keep: Keep | undefined,
  scanned = 0,
): Promise<{ runs: RunJson[]; next: string | null; scanned: number }> {
  const runs: RunJson[] = [];
  let next: string | null = null;
  let read = 0;
  do {
    const page = await api.runs({
      ...serverFilter(filter),
      limit: keep ? MAX_PAGE : Math.min(MAX_PAGE, count - runs.length),
      ...(next && { cursor: next }),
    });
    runs.push(...(keep ? page.runs.filter(keep) : page.runs));
    next = page.next;
    read += page.scanned ?? page.runs.length;
  } while (
    next &&
    runs.length < count &&
    (keep ? read < Math.max(scanned, KEEP_SCAN) : !filter.waitsForPerson || read < scanned)
  );
  return { runs, next, scanned: read };
}

const serverFilter = ({ word: _word, ...filter }: ListFilter) => filter;

/**
 * The runs list, a page at a time from the server (`GET /api/runs` with `q` and a cursor): the
 * first page at once; `more()` appends the page after the last run shown (the `next` of the page
 * before); after each step that `matters`, the runs shown are read again from the top, as many as
 * are shown, so the list follows what the server committed and keeps the pages loaded. A change of
 * filter starts over and drops the answers meant for the old one.
 */
export function useRunPages(
  filter: ListFilter,
  matters: (step: Step) => boolean,
  keep?: Keep,
): RunPages & { loadMore(): void } {
  const key = JSON.stringify(filter);
  const [shown, setShown] = useState<RunPages & { key?: string }>({
    more: false,
    loadingMore: false,
    scanned: 0,
  });
  const list = useRef<List>(undefined);
  const latest = useRef(matters);
  latest.current = matters;
  const kept = useRef(keep);
  kept.current = keep;

  const enqueue = useCallback((mine: List, read: () => Promise<void>, more = false) => {
    if (more) setShown((s) => ({ ...s, loadingMore: true }));
    mine.queue = mine.queue.then(read).then(
      () => {
        if (list.current === mine)
          setShown({
            key: mine.key,
            runs: mine.runs,
            more: mine.next !== null,
            loadingMore: false,
            scanned: mine.scanned,
          });
      },
      (error: Error) => {
        if (list.current === mine) setShown((s) => ({ ...s, key: mine.key, loadingMore: false, error }));
      },
    );
  }, []);

  useEffect(() => {
    const mine: List = {
      key,
      filter,
      runs: [],
      next: null,
      scanned: 0,
      queue: Promise.resolve(),
      refreshQueued: false,
    };
    list.current = mine;
    enqueue(mine, async () => {
      Object.assign(mine, await fromTop(mine.filter, PAGE_SIZE, kept.current));
    });
  }, [key]);

  /** Reads the runs shown again from the top, as many as are shown (one read queued at a time). */
  const refresh = useCallback(() => {
    const mine = list.current;
    if (!mine || mine.refreshQueued) return;
    mine.refreshQueued = true;
    enqueue(mine, async () => {
      mine.refreshQueued = false;
      Object.assign(
        mine,
        await fromTop(mine.filter, Math.max(PAGE_SIZE, mine.runs.length), kept.current, mine.scanned),
      );
    });
  }, [enqueue]);
  useSteps(useCallback((step: Step) => latest.current(step) && refresh(), [refresh]));
  // After the step stream reconnects (steps may have been missed), or when the server asks.
  useResync(refresh);

  const loadMore = useCallback(() => {
    const mine = list.current;
    if (!mine) return;
    enqueue(
      mine,
      async () => {
        if (!mine.next) return;
        const keep = kept.current;
        const page = await api.runs({
          ...serverFilter(mine.filter),
          limit: keep ? MAX_PAGE : PAGE_SIZE,
          cursor: mine.next,
        });
        mine.runs = [...mine.runs, ...(keep ? page.runs.filter(keep) : page.runs)];
        mine.next = page.next;
        mine.scanned += page.scanned ?? page.runs.length;
      },
      true,
    );
  }, [enqueue]);

  const fresh = shown.key === key;
  return {
    ...(fresh && shown.runs && { runs: shown.runs }),
    more: fresh && shown.more,
    loadingMore: fresh && shown.loadingMore,
    scanned: fresh ? shown.scanned : 0,
    ...(fresh && shown.error && { error: shown.error }),
    loadMore,
  };
}
