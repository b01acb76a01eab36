/**
 * `GET /api/runs` at scale and `GET /api/runs/counts`, on the API app in this process over a
 * runtime on a SQLite store: pages newest first through an opaque cursor (each run once while runs
 * start between pages), the search `q`, the filters, counts by state from the store, and a cursor
 * or limit the API cannot take refused with a typed error naming the parameter.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { apiApp } from '../../src/serve/api-app.js';
import { WAITING_SCAN_BUDGET } from '../../src/serve/api-schemas.js';
import { StepStreams } from '../../src/serve/step-stream.js';
import { sqliteStore } from '../../src/stores/index.js';
import type { Store } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';

const T0 = Date.UTC(2026, 2, 1);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The API over a runtime on a fresh SQLite store, whose `list` and `load` calls are counted. */
async function apiOnSqlite(machines: Lifecycles = lifecycles) {
  const dir = testDir('runs-list');
  const inner = sqliteStore(join(dir, 'state.db'));
  const calls = { list: 0, load: 0 };
  const store: Store = {
    ...inner,
    list: (filter) => (calls.list++, inner.list(filter)),
    load: (runId) => (calls.load++, inner.load(runId)),
  };
  const clock = new ManualClock(T0);
  const runtime: Runtime = await createRuntime({ store, machines, clock });
  const app = apiApp({
    runtime,
    start: (machine, options) => runtime.start(machine, options),
    steps: new StepStreams(runtime),
    guard: { boundHost: '127.0.0.1' },
    uiDir: dir,
  });
  cleanups.push(async () => {
    await runtime.close();
    await inner.close();
  });
  const get = async (path: string) => {
    const response = await app.request(`http://127.0.0.1${path}`, { headers: { host: '127.0.0.1' } });
    return { status: response.status, body: (await response.json()) as any };
  };
  /** Starts runs of `machine`, each a millisecond after the one before. */
  const start = async (machine: string, ...ids: string[]) => {
    for (const id of ids) {
      clock.advance(1);
      await runtime.start(machine, { id });
    }
  };
  return { runtime, get, start, calls };
}

const ids = (body: { runs: Array<{ runId: string }> }) => body.runs.map((r) => r.runId);

/** Every page of `path` (a query string with a limit), following `next`; `between` runs after each page but the last. */
async function pages(
  get: (path: string) => Promise<{ status: number; body: any }>,
  path: string,
  between: () => Promise<void> = async () => {},
) {
  const seen: string[][] = [];
  let cursor: string | null = null;
  do {
    const { status, body } = await get(`${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(status).toBe(200);
    seen.push(ids(body));
    cursor = body.next;
    if (cursor) {
      expect(typeof cursor).toBe('string');
      await between();
    }
  } while (cursor);
  return seen;
}

describe('GET /api/runs: pages, search and counts from the store', () => {
  it('pages newest first through an opaque cursor, each run once while runs start between pages', async () => {
    const { get, start, runtime } = await apiOnSqlite();
    const first = Array.from({ length: 23 }, (_, i) => `job-${String(i).padStart(2, '0')}`);
    await start('execution', ...first);
    await runtime.dispatch('job-04', { type: 'ENQUEUE' });
    const newestFirst = [...first].reverse();

    let added = 0;
    const seen = await pages(get, '/api/runs?limit=5', () => start('execution', `late-${added++}`));
    expect(seen.map((page) => page.length)).toEqual([5, 5, 5, 5, 3]);
    expect(seen.flat()).toEqual(newestFirst);
    // The runs started meanwhile lead the next first page.
    const fresh = await get('/api/runs?limit=6');
    expect(ids(fresh.body)).toEqual(['late-3', 'late-2', 'late-1', 'late-0', 'job-22', 'job-21']);
    // Each run as the API shows it, with its verdict.
    const page = await get('/api/runs?limit=1&q=job-04');
    expect(page.body.runs[0]).toMatchObject({ runId: 'job-04', state: 'queued', verdict: expect.any(String) });
    // Without a limit: a page of 100, here all 27 and no next (an old caller's `{ runs }` as before).
    expect(await get('/api/runs')).toMatchObject({ status: 200, body: { next: null } });
    expect(ids((await get('/api/runs')).body)).toHaveLength(27);
  });

  it('explains only the runs of the page, and never loads every run', async () => {
    const { get, start, calls } = await apiOnSqlite();
    await start('execution', ...Array.from({ length: 60 }, (_, i) => `r${i}`));
    calls.list = 0;
    calls.load = 0;
    const { body } = await get('/api/runs?limit=5');
    expect(ids(body)).toEqual(['r59', 'r58', 'r57', 'r56', 'r55']);
    expect(calls.list).toBe(0);
    expect(calls.load).toBeLessThan(20);
  });

  it('searches run ids with q (A-Z in either case), within the filters, page by page', async () => {
    const { get, start, runtime } = await apiOnSqlite();
    await start('execution', 'Deploy-1', 'build-1', 'deploy-2', 'DEPLOY-3', 'build-2', 'deploy-4');
    await start('task', 'deploy-task');
    await runtime.dispatch('deploy-2', { type: 'ENQUEUE' });
    await runtime.dispatch('deploy-4', { type: 'SKIP' });
    expect(ids((await get('/api/runs?q=deploy')).body)).toEqual([
      'deploy-task',
      'deploy-4',
      'DEPLOY-3',
      'deploy-2',
      'Deploy-1',
    ]);
    expect((await pages(get, '/api/runs?q=DePlOy&machine=execution&limit=2')).flat()).toEqual([
      'deploy-4',
      'DEPLOY-3',
      'deploy-2',
      'Deploy-1',
    ]);
    expect(ids((await get('/api/runs?q=deploy&state=queued')).body)).toEqual(['deploy-2']);
    expect(ids((await get('/api/runs?q=deploy&status=done')).body)).toEqual(['deploy-4']);
    expect(ids((await get('/api/runs?q=%25')).body)).toEqual([]);
    expect(await get('/api/runs?q=nothing')).toMatchObject({ status: 200, body: { runs: [], next: null } });
  });

  it('counts runs by state from the store, for one lifecycle or all, and by lifecycle, status and state', async () => {
    const { get, start, runtime } = await apiOnSqlite();
    await start('execution', 'a', 'b', 'c', 'd');
    await start('task', 't');
    await runtime.dispatch('a', { type: 'ENQUEUE' });
    await runtime.dispatch('b', { type: 'ENQUEUE' });
    await runtime.dispatch('c', { type: 'SKIP' });
    expect(await get('/api/runs/counts?machine=execution')).toMatchObject({
      status: 200,
      body: { counts: { pending: 1, queued: 2, skipped: 1 }, total: 4 },
    });
    const all = await get('/api/runs/counts');
    expect(all.body.total).toBe(5);
    expect(Object.values(all.body.counts as Record<string, number>).reduce((a, b) => a + b)).toBe(5);
    // By lifecycle and status too: a finished run's status (done) beside the state it ended in.
    const byGroup = (groups: Array<{ machine: string; status: string; state: string; runs: number }>) =>
      Object.fromEntries(groups.map((g) => [`${g.machine} ${g.status} ${g.state}`, g.runs]));
    expect(byGroup(all.body.groups)).toEqual({
      'execution active pending': 1,
      'execution active queued': 2,
      'execution done skipped': 1,
      'task active Idle': 1,
    });
    expect((await get('/api/runs/counts?machine=execution&status=active')).body).toMatchObject({
      counts: { pending: 1, queued: 2 },
      total: 3,
    });
    expect(await get('/api/runs/counts?machine=nope')).toEqual({
      status: 200,
      body: { counts: {}, total: 0, groups: [] },
    });
    expect(await get('/api/runs/counts?status=sleeping')).toMatchObject({
      status: 422,
      body: { error: 'QueryParameterError', parameter: 'status' },
    });
  });

  it('refuses a cursor it did not give out and a limit out of range, naming the parameter', async () => {
    const { get, start } = await apiOnSqlite();
    await start('execution', 'a', 'b', 'c');
    const { next } = (await get('/api/runs?limit=1')).body;
    expect(ids((await get(`/api/runs?limit=1&cursor=${next}`)).body)).toEqual(['b']);
    const notACursor = Buffer.from('{"createdAt":1}').toString('base64url');
    for (const cursor of [
      'not a cursor!',
      next.slice(0, -3),
      notACursor,
      Buffer.from('[1,""]').toString('base64url'),
    ]) {
      const refused = await get(`/api/runs?cursor=${encodeURIComponent(cursor)}`);
      expect(refused, cursor).toMatchObject({
        status: 422,
        body: {
          error: 'QueryParameterError',
          kind: 'invalid',
          parameter: 'cursor',
          message: expect.stringMatching(/^Bad query parameter 'cursor' .*: it .*pass the 'next' of the page before/),
        },
      });
    }
    for (const limit of ['0', '-1', '1001', 'ten', '1.5', '99999999']) {
      expect(await get(`/api/runs?limit=${limit}`), limit).toMatchObject({
        status: 422,
        body: {
          error: 'QueryParameterError',
          parameter: 'limit',
          message: expect.stringMatching(/it must be a whole number from 1 to 1000/),
        },
      });
    }
  });

  it("finds the built-in lifecycles' runs that wait for a person: a held deploy waits for its reviewer", async () => {
    const { get, start, runtime } = await apiOnSqlite();
    await start('execution', 'deploy-1', 'deploy-2', 'deploy-3');
    await runtime.dispatch('deploy-2', { type: 'HOLD' });
    await runtime.dispatch('deploy-3', { type: 'ENQUEUE' });
    const waiting = await get('/api/runs?waitsForPerson=true');
    expect(ids(waiting.body)).toEqual(['deploy-2']);
    expect(waiting.body.runs[0]).toMatchObject({
      waitsForPerson: true,
      verdict: 'waits for a reviewer to APPROVE or REJECT it (a protection rule holds it for required reviewers)',
    });
    const explained = (await get('/api/runs/deploy-2/explain')).body;
    expect(explained.waitingFor).toEqual([
      expect.objectContaining({ kind: 'approval', approve: { type: 'APPROVE' }, deny: { type: 'REJECT' } }),
    ]);
  });

  it('filters the runs waiting for a person on the server, a scan budget at a time, each found once', async () => {
    // The execution lifecycle, its `held` state declared a person's approval (`waitsFor`): a run
    // waits once HOLD puts it there, and explains so cheaply (no hook, no agent).
    const approval = {
      ...lifecycles.execution,
      waitsFor: { held: { summary: 'a person to approve', approve: { type: 'APPROVE' }, deny: { type: 'REJECT' } } },
    };
    const { get, start, runtime } = await apiOnSqlite({ ...lifecycles, approval } as Lifecycles);
    // 1,300 runs, every 97th held (14 waiting), 1,100 of them after the last waiting one but the
    // first: more than a budget of runs between waiting ones. Two held runs are then approved
    // (queued: active, no longer waiting) and rejected (cancelled: done, not read by default).
    const all = Array.from({ length: 1300 }, (_, i) => `a-${String(i).padStart(4, '0')}`);
    await start('approval', ...all);
    const held = all.filter((_, i) => i % 97 === 0 && i < 200).concat(all.slice(1290, 1296));
    for (const id of held) await runtime.dispatch(id, { type: 'HOLD' });
    await runtime.dispatch('a-1295', { type: 'APPROVE' });
    await runtime.dispatch('a-1294', { type: 'REJECT' });
    const waiting = held.filter((id) => id !== 'a-1295' && id !== 'a-1294').reverse();
    expect(waiting).toEqual(['a-1293', 'a-1292', 'a-1291', 'a-1290', 'a-0194', 'a-0097', 'a-0000']);
    expect(WAITING_SCAN_BUDGET).toBe(500);

    // Pages of 2: only waiting runs, newest first; the first stops when it has 2.
    const first = await get('/api/runs?waitsForPerson=true&limit=2');
    expect(first.status).toBe(200);
    expect(ids(first.body)).toEqual(['a-1293', 'a-1292']);
    expect(first.body.runs.every((r: { waitsForPerson: boolean }) => r.waitsForPerson)).toBe(true);
    expect(first.body.scanned).toBe(7);
    // Following `next` finds every waiting run once, in order; a page that used its budget without
    // finding `limit` has a `next` all the same, even empty.
    const seen = await pages(get, '/api/runs?waitsForPerson=true&limit=2');
    expect(seen.flat()).toEqual(waiting);
    expect(seen).toContainEqual([]);
    expect(seen.at(-1)!.length).toBeGreaterThan(0);
    // A larger limit: each page still reads at most the budget.
    const big = await get('/api/runs?waitsForPerson=true&limit=100');
    expect(ids(big.body)).toEqual(['a-1293', 'a-1292', 'a-1291', 'a-1290']);
    expect(big.body.scanned).toBe(WAITING_SCAN_BUDGET);
    expect(big.body.next).toEqual(expect.any(String));
    expect((await pages(get, '/api/runs?waitsForPerson=true&limit=1000')).flat()).toEqual(waiting);
    // With the other filters: a search, and `status=done` (none of the done runs waits).
    expect((await pages(get, '/api/runs?waitsForPerson=true&q=a-12&limit=10')).flat()).toEqual([
      'a-1293',
      'a-1292',
      'a-1291',
      'a-1290',
    ]);
    expect(await get('/api/runs?waitsForPerson=true&status=done')).toMatchObject({
      status: 200,
      body: { runs: [], next: null, scanned: 1 },
    });
    // `false` is no filter; a bad value is refused, naming the parameter.
    expect(ids((await get('/api/runs?waitsForPerson=false&limit=3')).body)).toEqual(['a-1299', 'a-1298', 'a-1297']);
    expect(await get('/api/runs?waitsForPerson=maybe')).toMatchObject({
      status: 422,
      body: { error: 'QueryParameterError', kind: 'invalid', parameter: 'waitsForPerson' },
    });
  }, 60_000);
});
