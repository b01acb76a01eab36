/**
 * The live view's runs list and lifecycle counts past a thousand runs, in a real browser against
 * `statewright serve` on a SQLite store of 1,100 runs: the list shows a page of 50, "more" loads
 * the next through the API's cursor, the search asks the server (`q`), a run started meanwhile
 * leads the list, and the lifecycle page counts every run from `/api/runs/counts`, not the newest
 * thousand. Needs `npm run build` first (the bin and dist/ui).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, ManualClock } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { inPage, openView } from '../support/live-page.js';
import { api, startServeProcess } from '../support/serve-process.js';

const root = new URL('../../', import.meta.url).pathname;
const RUNS = 10_000;
const runId = (i: number) => `run-${String(i).padStart(5, '0')}`;

/** 10,000 executions, a millisecond apart (run-00000 the oldest): all skipped but the newest five, still pending. */
async function seed(path: string) {
  const store = sqliteStore(path);
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  const runtime = await createRuntime({ store, machines: lifecycles, clock });
  for (let from = 0; from < RUNS; from += 100) {
    const ids = Array.from({ length: 100 }, (_, k) => runId(from + k));
    // Started in order (a millisecond apart), their steps committed together.
    const started = ids.map((id) => {
      clock.advance(1);
      return runtime.start('execution', { id });
    });
    await Promise.all(started);
    await Promise.all(ids.filter((id) => id < runId(RUNS - 5)).map((id) => runtime.dispatch(id, { type: 'SKIP' })));
  }
  await runtime.close();
  await store.close();
}

/** The run ids of the list's rows, once `expression` over them (`ids`, in the page) holds. */
async function rowsOnce(page: Page, expression: string): Promise<string[]> {
  await inPage(
    page,
    `(() => { const ids = [...document.querySelectorAll('tr[data-run]')].map((row) => row.getAttribute('data-run')); return ${expression}; })()`,
  );
  return page.locator('tr[data-run]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run')!));
}

describe('the live view with ten thousand runs', () => {
  it('pages the runs list with "more", searches on the server, and counts every run on the lifecycle page', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('runs-pages');
    const path = join(dir, 'state.db');
    await seed(path);
    const serve = await startServeProcess(dir, ['--store', `sqlite:${path}`]);
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    try {
      const newest = (n: number, from = RUNS - 1) => Array.from({ length: n }, (_, k) => runId(from - k));
      await openView(page, serve.url, serve.token);
      expect(await rowsOnce(page, 'ids.length === 50')).toEqual(newest(50));
      await page.locator('button[name="more"]').click();
      expect(await rowsOnce(page, 'ids.length === 100')).toEqual(newest(100));

      // A run started now leads the list, which keeps the pages it loaded.
      await api(serve.url, 'POST', '/api/runs', { machine: 'execution', id: 'started-now' });
      const followed = await rowsOnce(page, "ids[0] === 'started-now'");
      expect(followed).toEqual(['started-now', ...newest(99)]);

      // The search is the server's: run ids holding 'RUN-000', in either case, a page at a time: the oldest runs.
      await page.locator('input[name="search"]').fill('RUN-000');
      expect(await rowsOnce(page, "ids.length === 50 && ids[0] === 'run-00099'")).toEqual(newest(50, 99));
      await page.locator('button[name="more"]').click();
      expect(await rowsOnce(page, 'ids.length === 100')).toEqual(newest(100, 99));
      expect(await page.locator('button[name="more"]').count()).toBe(0);

      // Every run counted, from the store: not the newest thousand.
      await page.goto(`${serve.url}/#/lifecycles/execution`);
      await page.locator('.count-chip[data-state="skipped"]').waitFor();
      expect(await page.locator('.count-chip').allTextContents()).toEqual(['skipped 9995', 'pending 6']);
      expect(await page.locator('section.lifecycle p', { hasText: 'runs:' }).textContent()).toMatch(/^10001 runs: /);
      expect(failures).toEqual([]);
    } finally {
      await serve.stop();
    }
  });
});
