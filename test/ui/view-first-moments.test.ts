/**
 * The live view's first moments, on a slow machine or a slow link, in Chromium: what happens
 * between the page's load, the trade of its token and its first reads must end with the page
 * showing its data, however the timings fall.
 * - A route taken just after the view first draws (before its effects ran: a busy renderer runs
 *   them late) is followed. Before, `useRoute` subscribed to `hashchange` in an effect and never
 *   read the hash again, so the view stayed on the runs list: the flake of statechart-view and
 *   any-machine-view (`#/lifecycles/...` never shown after `openView`).
 * Needs `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
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
});
