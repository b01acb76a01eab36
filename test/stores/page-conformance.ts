/**
 * Pages of runs and counts by state (`Store.listPage`, `Store.countByState`), as every store must
 * give them: newest first, each run once across a cursor's pages while runs are added between
 * them, the filter and the search (`q`) applied by the store, and counts equal to a full scan.
 * Called from the conformance suite (conformance.ts), so it runs against every store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { InvalidArgumentError } from '../../src/runtime/errors.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import {
  newestFirst,
  type Commit,
  type RunCursor,
  type RunFilter,
  type RunGroup,
  type RunPageQuery,
  type Store,
  type StoredRun,
} from '../../src/stores/store.js';

/** What this suite needs of a store harness (conformance.ts's `StoreHarness`). */
export interface PageHarness {
  readonly name: string;
  fresh(): Promise<{ readonly store: Store; warnings(): readonly unknown[]; dispose(): Promise<void> }>;
}

const T0 = Date.UTC(2026, 1, 1);

const run = (runId: string, seq: number, fields: Partial<StoredRun> = {}): StoredRun => ({
  runId,
  machine: 'execution',
  version: 1,
  status: 'active',
  state: seq === 0 ? 'pending' : `s${seq}`,
  snapshot: { value: seq === 0 ? 'pending' : `s${seq}`, context: { seq } },
  input: { runId },
  seq,
  owner: undefined,
  createdAt: T0,
  updatedAt: T0 + seq,
  ...fields,
});

const created = (runId: string, fields: Partial<StoredRun> = {}): Commit => ({
  run: run(runId, 0, fields),
  expectedSeq: undefined,
});

/** Step `seq` of a run created with `fields`; `last` overrides the row it leaves (its state, status). */
const stepped = (
  runId: string,
  seq: number,
  fields: Partial<StoredRun> = {},
  last: Partial<StoredRun> = {},
): Commit => ({
  run: run(runId, seq, { ...fields, ...last }),
  event: {
    runId,
    seq,
    event: { type: 'STEP' },
    at: T0 + seq,
    before: seq === 1 ? 'pending' : `s${seq - 1}`,
    after: last.state ?? `s${seq}`,
  },
  expectedSeq: seq - 1,
});

/** Creates a run and moves it `steps` steps, one commit each (so SQLite's row checkpoint lags its log). */
async function add(
  store: Store,
  runId: string,
  fields: Partial<StoredRun> = {},
  steps = 0,
  last: Partial<StoredRun> = {},
) {
  await store.commit([created(runId, fields)]);
  for (let seq = 1; seq <= steps; seq++) await store.commit([stepped(runId, seq, fields, seq === steps ? last : {})]);
}

/** The next step of a stored run, its row as it was but for `last`. */
async function step(store: Store, runId: string, last: Partial<StoredRun> = {}) {
  const { machine, status, createdAt, seq } = (await store.load(runId))!;
  await store.commit([stepped(runId, seq + 1, { machine, status, createdAt }, last)]);
}

/** Every page of `query`, following `next`; `between` runs after each page but the last. */
async function allPages(
  store: Store,
  query: Omit<RunPageQuery, 'after'>,
  between: (page: number) => Promise<void> = async () => {},
): Promise<StoredRun[][]> {
  const pages: StoredRun[][] = [];
  let after: RunCursor | undefined;
  for (;;) {
    const page = await store.listPage({ ...query, ...(after && { after }) });
    pages.push(page.runs);
    expect(page.runs.length, 'a page is never longer than its limit').toBeLessThanOrEqual(query.limit);
    if (!page.next) return pages;
    expect(page.runs.length, 'a page with a next is full').toBe(query.limit);
    expect(page.next).toEqual({ createdAt: page.runs.at(-1)!.createdAt, runId: page.runs.at(-1)!.runId });
    after = page.next;
    await between(pages.length);
    if (pages.length > 1000) throw new Error('the pages never end');
  }
}

const idsOf = (runs: readonly StoredRun[]) => runs.map((r) => r.runId);

/** What a full scan says `query` finds, in the pages' order. */
async function scanned(store: Store, query: RunFilter & { q?: string }): Promise<string[]> {
  const { q, ...filter } = query;
  return idsOf(
    (await store.list(filter))
      .filter(
        (r) =>
          !q || r.runId.replace(/[A-Z]/g, (c) => c.toLowerCase()).includes(q.replace(/[A-Z]/g, (c) => c.toLowerCase())),
      )
      .sort(newestFirst),
  );
}

export function pageConformance(harness: PageHarness): void {
  const opened: Array<Awaited<ReturnType<PageHarness['fresh']>>> = [];
  const runtimes: Runtime[] = [];
  const open = async () => {
    const o = await harness.fresh();
    opened.push(o);
    return o.store;
  };
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.close();
    for (const o of opened.splice(0)) {
      expect(o.warnings(), 'corruption reports in normal operation').toEqual([]);
      await o.dispose();
    }
  });

  describe(`${harness.name} store: pages of runs and counts by state`, () => {
    it('pages newest first, by run id (code point order) among runs of one millisecond, each run once', async () => {
      const store = await open();
      // Three share a millisecond: their ids decide, compared by code point (U+E000 before an emoji, unlike UTF-16).
      const tied = ['a', 'B', 'a/b', '\ue000x', '\u{1F600}x', 'ü-ü', 'z'];
      for (const id of tied) await add(store, id, { createdAt: T0 + 100 });
      for (let i = 0; i < 12; i++) await add(store, `run-${i}`, { createdAt: T0 + (i % 4) * 3 }, i % 3);
      expect(idsOf((await store.listPage({ limit: 7 })).runs)).toEqual([
        '\u{1F600}x',
        '\ue000x',
        'ü-ü',
        'z',
        'a/b',
        'a',
        'B',
      ]);
      const pages = await allPages(store, { limit: 4 });
      expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 4, 3]);
      const listed = pages.flat();
      expect(idsOf(listed)).toEqual(await scanned(store, {}));
      // Each run as a load reads it: its current row, not a checkpoint behind it.
      for (const r of listed) expect(r).toEqual(await store.load(r.runId));
      expect(listed.find((r) => r.runId === 'run-2')?.state).toBe('s2');
      // One page holding everything has no next; an empty store has one empty page.
      expect(await store.listPage({ limit: 19 })).toMatchObject({ next: null });
      expect((await store.listPage({ limit: 18 })).next).not.toBeNull();
      expect(await (await open()).listPage({ limit: 5 })).toEqual({ runs: [], next: null });
    });

    it('keeps its place while runs are added and stepped between pages: none of the first ones skipped or repeated', async () => {
      const store = await open();
      for (let i = 0; i < 30; i++) await add(store, `r${String(i).padStart(2, '0')}`, { createdAt: T0 + 10 * i });
      const before = await scanned(store, {});
      let added = 0;
      const pages = await allPages(store, { limit: 7 }, async (page) => {
        // Runs started since (newer than every page), one in a millisecond already paged, and steps of runs on either side.
        await add(store, `new-${added++}`, { createdAt: T0 + 1000 + page });
        await add(store, `new-${added++}`, { createdAt: T0 + 1000 + page });
        await add(store, `tie-${page}`, { createdAt: T0 + 290 });
        await step(store, `r${String(page).padStart(2, '0')}`);
        await step(store, `r${String(29 - page).padStart(2, '0')}`, { state: 'moved' });
      });
      const ids = idsOf(pages.flat());
      expect(new Set(ids).size, 'no run repeated').toBe(ids.length);
      expect(ids.filter((id) => before.includes(id))).toEqual(before);
      expect(
        ids.some((id) => id.startsWith('new-')),
        'runs started after the first page come before it',
      ).toBe(false);
      // In order throughout.
      const listed = pages.flat();
      for (let i = 1; i < listed.length; i++) expect(newestFirst(listed[i - 1]!, listed[i]!)).toBeLessThan(0);
    });

    it('filters by machine, status and current state, and searches run ids (A-Z in either case, LIKE wildcards as text)', async () => {
      const store = await open();
      const ids = [
        'Deploy-1',
        'deploy-2',
        'DEPLOYER',
        'build-1',
        'x_y',
        'xay',
        'x%y',
        'xby',
        'back\\slash',
        'ÜBER',
        'über',
      ];
      for (const [i, id] of ids.entries()) await add(store, id, { createdAt: T0 + i });
      await add(store, 'deploy-codon', { machine: 'codon', createdAt: T0 + 50 }, 2);
      await add(store, 'deploy-done', { createdAt: T0 + 51 }, 3, { status: 'done', state: 'success' });
      const q = async (text: string, filter: RunFilter = {}) =>
        idsOf((await store.listPage({ ...filter, q: text, limit: 50 })).runs);
      expect(await q('deploy')).toEqual(['deploy-done', 'deploy-codon', 'DEPLOYER', 'deploy-2', 'Deploy-1']);
      expect(await q('LOY-')).toEqual(['deploy-done', 'deploy-codon', 'deploy-2', 'Deploy-1']);
      expect(await q('_')).toEqual(['x_y']);
      expect(await q('%')).toEqual(['x%y']);
      expect(await q('\\')).toEqual(['back\\slash']);
      expect(await q('über')).toEqual(['über']);
      expect(await q('nothing')).toEqual([]);
      expect(await q('deploy', { machine: 'codon' })).toEqual(['deploy-codon']);
      expect(await q('deploy', { status: 'done' })).toEqual(['deploy-done']);
      expect(await q('deploy', { state: 's2' })).toEqual(['deploy-codon']);
      expect(await q('', { machine: 'execution', status: 'active', state: 'pending' })).toEqual([...ids].reverse());
      for (const query of [
        { q: 'deploy' },
        { q: 'x' },
        { machine: 'codon' },
        { status: 'done' },
        { state: 'pending', q: 'e' },
      ])
        expect(idsOf((await allPages(store, { ...query, limit: 2 })).flat()), JSON.stringify(query)).toEqual(
          await scanned(store, query),
        );
    });

    it('pages a state that few runs rest in, from far down the list', async () => {
      const store = await open();
      // 1 in 25 rests in 'rare', reached by steps (so SQLite's row checkpoint still says 's1'); the rest are pending.
      for (let i = 0; i < 260; i++)
        await add(
          store,
          `m${String(i).padStart(3, '0')}`,
          { createdAt: T0 + i },
          i % 25 === 0 ? 2 : 0,
          i % 25 === 0 ? { state: 'rare' } : {},
        );
      const pages = await allPages(store, { state: 'rare', limit: 3 });
      expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 2]);
      expect(idsOf(pages.flat())).toEqual(await scanned(store, { state: 'rare' }));
      expect(pages.flat().every((r) => r.state === 'rare')).toBe(true);
    });

    it('counts runs by their current state, exactly as a full scan does', async () => {
      const store = await open();
      expect(await store.countByState()).toEqual({ counts: {}, total: 0, groups: [] });
      await add(store, 'fresh');
      await add(store, 'one-step', {}, 1);
      // Far past a checkpoint (SQLite brings its row up to date every 32 commits): the log says where it is.
      await add(store, 'long', {}, 45, { state: 'long-way' });
      await add(store, 'ended', {}, 2, { status: 'done', state: 'success' });
      await add(store, 'other', { machine: 'codon', state: 'running' }, 3);
      for (let i = 0; i < 20; i++) await add(store, `bulk-${i}`, { createdAt: T0 + i }, i % 4);
      // By lifecycle, status and state too (`groups`, each combination once, in no set order).
      const full = async (filter: RunFilter) => {
        const counts: Record<string, number> = {};
        const groups: Record<string, RunGroup> = {};
        const runs = await store.list(filter);
        for (const r of runs) {
          counts[r.state] = (counts[r.state] ?? 0) + 1;
          const key = `${r.machine}/${r.status}/${r.state}`;
          groups[key] = { machine: r.machine, status: r.status, state: r.state, runs: (groups[key]?.runs ?? 0) + 1 };
        }
        return { counts, total: runs.length, groups: sorted(Object.values(groups)) };
      };
      const sorted = (groups: readonly RunGroup[]) =>
        [...groups].sort((a, b) =>
          `${a.machine}/${a.status}/${a.state}`.localeCompare(`${b.machine}/${b.status}/${b.state}`),
        );
      const counted = async (filter: RunFilter) => {
        const { groups, ...rest } = await store.countByState(filter);
        return { ...rest, groups: sorted(groups) };
      };
      for (const filter of [
        {},
        { machine: 'execution' },
        { machine: 'codon' },
        { status: 'done' },
        { machine: 'execution', status: 'active' },
        { state: 's2' },
        { machine: 'nope' },
      ] as RunFilter[])
        expect(await counted(filter), JSON.stringify(filter)).toEqual(await full(filter));
      expect(sorted((await store.countByState({ machine: 'execution', status: 'done' })).groups)).toEqual([
        { machine: 'execution', status: 'done', state: 'success', runs: 1 },
      ]);
      expect((await store.countByState({ machine: 'execution' })).counts).toMatchObject({
        pending: 6,
        s1: 6,
        'long-way': 1,
        success: 1,
      });
    });

    it('pages and counts through the runtime, which checks the query first', async () => {
      const store = await open();
      const rt = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(T0) });
      runtimes.push(rt);
      for (const id of ['job-1', 'job-2', 'job-3']) await rt.start('execution', { id });
      await rt.dispatch('job-2', { type: 'ENQUEUE' });
      const first = await rt.listPage({ limit: 2, machine: 'execution' });
      // One millisecond on the manual clock: the ids decide, descending.
      expect(first.runs.map((r) => [r.runId, r.state])).toEqual([
        ['job-3', 'pending'],
        ['job-2', 'queued'],
      ]);
      const { runId, state, seq, status, createdAt, value } = await rt.getSnapshot('job-2');
      expect(first.runs[1]).toMatchObject({ runId, state, seq, status, createdAt, value });
      const rest = await rt.listPage({ limit: 2, machine: 'execution', after: first.next! });
      expect([rest.runs.map((r) => r.runId), rest.next]).toEqual([['job-1'], null]);
      expect((await rt.listPage({ limit: 10, q: 'B-2' })).runs.map((r) => r.runId)).toEqual(['job-2']);
      expect(await rt.countRuns({ machine: 'execution' })).toMatchObject({
        counts: { pending: 2, queued: 1 },
        total: 3,
      });
      for (const bad of [
        { limit: 0 },
        { limit: 1.5 },
        { limit: 10, status: 'sleeping' },
        { limit: 10, q: 5 },
        { limit: 10, after: { createdAt: 'yesterday', runId: 'job-1' } },
      ])
        await expect(rt.listPage(bad as unknown as RunPageQuery), JSON.stringify(bad)).rejects.toBeInstanceOf(
          InvalidArgumentError,
        );
      await expect(rt.countRuns({ status: 'sleeping' })).rejects.toBeInstanceOf(InvalidArgumentError);
    });
  });
}
