/**
 * The live view's first moments, on a slow machine or a slow link, in Chromium: what happens
 * between the page's load, the trade of its token and its first reads must end with the page
 * showing its data, however the timings fall.
 * - A route taken just after the view first draws (before its effects ran: a busy renderer runs
 *   them late) is followed. Before, `useRoute` subscribed to `hashchange` in an effect and never
 *   read the hash again, so the view stayed on the runs list: the flake of statechart-view and
 *   any-machine-view (`#/lifecycles/...` never shown after `openView`).
 * - A first read that fails (a busy server's 503) is shown as an error and tried again until it
 *   answers: the lifecycle page, its diagram and the header's lifecycles end up shown, though no
 *   step comes to reload them. Before, each stayed an error for good.
 * - The view's URL pasted into a tab that shows the view already, on a slow link: the page's reads
 *   wait for the trade and carry the credential it gave, never the one before it.
 * Needs `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { openView } from '../support/live-page.js';
import { api, startServeProcess } from '../support/serve-process.js';

const root = new URL('../../', import.meta.url).pathname;

describe("the live view's first moments", () => {
  it('follows a route taken just after it first draws, before its effects have run', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('view-first-route');
    const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
    expect((await api(serve.url, 'POST', '/api/runs', { machine: 'task', id: 'first-1' })).status).toBe(201);
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    // A busy renderer, made certain: the frame that runs the view's effects comes late, and the
    // route changes in the task right after the one that traded the token and drew the view.
    await page.addInitScript(`(() => {
      window.requestAnimationFrame = (callback) => setTimeout(() => callback(performance.now()), 500);
      const setItem = Storage.prototype.setItem;
      let moved = false;
      Storage.prototype.setItem = function (key, value) {
        setItem.call(this, key, value);
        if (key === 'statewright-view-credential' && !moved) {
          moved = true;
          setTimeout(() => { location.hash = '#/lifecycles/task'; }, 0);
        }
      };
    })()`);
    await page.goto(`${serve.url}/#token=${serve.token}`);
    await page.locator('.lifecycle .count-chip').waitFor({ timeout: 15_000 });
    await page.locator('.diagram svg.statechart').waitFor({ timeout: 15_000 });
  });

  it('shows a page whose first reads failed once, once they answer', async () => {
    const dir = testDir('view-first-failure');
    const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
    expect((await api(serve.url, 'POST', '/api/runs', { machine: 'task', id: 'failed-once-1' })).status).toBe(201);
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    // The first answer of each read the lifecycle page makes is a busy server's; the next ones are serve's.
    const failed = new Set<string>();
    for (const pattern of [
      '**/api/machines',
      '**/api/machines/task/diagram.svg',
      '**/api/runs/counts?*',
      '**/api/runs?*',
    ])
      await page.route(pattern, (route) => {
        if (failed.has(pattern)) return route.fallback();
        failed.add(pattern);
        return route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'Busy', message: 'busy for a moment' }),
        });
      });
    await openView(page, serve.url, serve.token, '#/lifecycles/task');
    await page.locator('.lifecycle .count-chip').waitFor({ timeout: 20_000 });
    await page.locator('.diagram svg.statechart').waitFor({ timeout: 20_000 });
    await page.locator('header nav a[href="#/lifecycles/task"]').waitFor({ timeout: 20_000 });
    expect([...failed].sort()).toHaveLength(4);
    // Once answered, the errors shown meanwhile are gone.
    expect(await page.locator('.error').count()).toBe(0);
  });

  it('reads with the credential of a slow trade when its URL is pasted into a tab showing the view', async () => {
    const dir = testDir('view-slow-trade');
    const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
    expect((await api(serve.url, 'POST', '/api/runs', { machine: 'task', id: 'slow-trade-1' })).status).toBe(201);
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    await openView(page, serve.url, serve.token, '#/runs/slow-trade-1');
    // The run page's reads done, so that every read counted below is one of the paste's.
    await page.locator('.diagram svg.statechart').waitFor();
    await page.locator('header nav a[href="#/lifecycles/task"]').waitFor();
    const first = await page.evaluate(`sessionStorage.getItem('statewright-view-credential')`);
    // From now on the trade crosses a slow link: its answer comes 1.5 s late.
    let traded: string | undefined;
    await page.route('**/api/view-session', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { credential: string };
      await new Promise((resolve) => setTimeout(resolve, 1500));
      traded = body.credential;
      await route.fulfill({ response, json: body });
    });
    const reads: Array<{ url: string; authorization: string | undefined; traded: boolean }> = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/') && !request.url().endsWith('/api/view-session'))
        reads.push({ url: request.url(), authorization: request.headers().authorization, traded: !!traded });
    });
    await openView(page, serve.url, serve.token, '#/lifecycles/task');
    await page.locator('.lifecycle .count-chip').waitFor({ timeout: 20_000 });
    expect(traded).toBeDefined();
    expect(traded).not.toBe(first);
    expect(reads.length).toBeGreaterThan(0);
    // Every read after the paste waited for the trade: none went out with the credential before it.
    expect(reads.filter((read) => read.authorization !== `View ${traded}`)).toEqual([]);
  });
});
