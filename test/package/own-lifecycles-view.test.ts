/**
 * The live view of a user's own lifecycles, from the installed package: `serve` from the installed
 * bin with a config holding a machine of the user's own (`article`) and the built-in `session`
 * edited (v2, a `reviewed` state), looked at and driven in a real browser (Chromium from
 * @sparticuz/chromium, driven by playwright-core) as the user would: both listed and drawn, an
 * article run explained by its `waitsFor` and moved to `published` with the view's own buttons, and
 * no message pointing the user into the package's sources.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { installPackedPackage, type InstalledPackage } from '../support/packed-package.js';
import { api, startServeProcess } from '../support/serve-process.js';
import { withMigration, writeUserConfig } from '../support/user-config.js';
import { inPage, keepScreenshot, openView } from '../support/live-page.js';

let pkg: InstalledPackage;
beforeAll(async () => {
  pkg = await installPackedPackage();
}, 240_000);
afterAll(() => pkg?.remove());

const screenshot = keepScreenshot;

/** What would send a user of the package into its sources rather than their config. */
const intoThePackage = /machines\/index\.ts|node_modules/;

/** The page's whole text once its diagram is drawn, with every state's name in the SVG. */
async function drawn(page: Page, states: readonly string[]): Promise<string | null> {
  await inPage(
    page,
    `(() => {
      const titles = [...document.querySelectorAll('.diagram svg g.node title')].map((t) => t.textContent);
      return ${JSON.stringify(states)}.every((state) => titles.includes(state));
    })()`,
  );
  return page.locator('body').textContent();
}

describe("the live view of a user's own lifecycles, from the installed package", () => {
  it('lists and draws them, explains an article run by its waitsFor and moves it to published with its buttons', async () => {
    writeUserConfig(pkg.dir, withMigration);
    const server = await startServeProcess(
      pkg.dir,
      ['--store', `sqlite:${join(pkg.dir, 'view.db')}`, '--create'],
      {},
      { bin: pkg.bin },
    );
    try {
      const browser = await launchBrowser(join(pkg.dir, 'chromium-profile'));
      const page = await browser.newPage();
      const failures: string[] = [];
      page.on('pageerror', (error) => failures.push(error.message));
      page.on(
        'console',
        (message) => message.type() === 'error' && failures.push(`${message.location().url}: ${message.text()}`),
      );
      page.on(
        'requestfailed',
        (request) =>
          // The step stream is cut whenever the page goes: only other requests count.
          !request.url().endsWith('/api/steps') && failures.push(`${request.url()}: ${request.failure()?.errorText}`),
      );
      const seen: Array<string | null> = [];

      // The lifecycles: the user's article among the built-in ones, each with its page.
      await openView(page, server.url, server.token);
      const nav = page.locator('header nav');
      await nav.locator('a', { hasText: /^article$/ }).waitFor();
      expect(await nav.locator('a').allTextContents()).toEqual(
        expect.arrayContaining(['Runs', 'article', 'session', 'execution']),
      );
      await nav.locator('a', { hasText: /^article$/ }).click();
      await page.locator('section.lifecycle h1', { hasText: 'article' }).waitFor();
      seen.push(await drawn(page, ['draft', 'review', 'published']));
      expect(await page.locator('section.lifecycle').textContent()).toMatch(
        /an article from draft through review to published/,
      );
      const articleSvg = await page.locator('.diagram svg').innerHTML();
      for (const state of ['draft', 'review', 'published']) expect(articleSvg).toContain(state);

      // The edited session: v2, its diagram with the state the user added.
      await nav.locator('a', { hasText: /^session$/ }).click();
      await page.locator('section.lifecycle h1', { hasText: 'session' }).waitFor();
      seen.push(await drawn(page, ['completed', 'reviewed']));
      expect(await page.locator('section.lifecycle h1').textContent()).toMatch(/v2/);
      expect(await page.locator('.diagram svg').innerHTML()).toContain('reviewed');

      // A run of article, started through the API (the view starts none), shown on its run page.
      const started = await api(server.url, 'POST', '/api/runs', { machine: 'article', id: 'post-1' });
      expect(started.status).toBe(201);
      await page.goto(`${server.url}/#/`);
      await page.locator('tr[data-run="post-1"]').waitFor();
      expect(await page.locator('tr[data-run="post-1"] td.verdict').textContent()).toMatch(/its author/);
      await page.locator('tr[data-run="post-1"] a', { hasText: 'post-1' }).click();
      await page.locator('.state-now[data-state="draft"]').waitFor();
      await page.locator('.diagram g.node.current[data-state="draft"]').waitFor();
      // Why it waits, in the user's own words.
      await page.locator('.explain .verdict', { hasText: 'waits for its author' }).waitFor();
      await page.locator('.waiting [data-pending="draft"]', { hasText: 'Waits for its author' }).waitFor();
      seen.push(await page.locator('body').textContent());

      // SUBMIT with the view's own button (and its confirmation, if it asks one).
      await send(page, 'SUBMIT');
      await page.locator('.state-now[data-state="review"]').waitFor();
      await page.locator('.explain .verdict', { hasText: 'waits for an editor' }).waitFor();
      // The editor's decision is offered with the events the config gave it.
      const decision = page.locator('.waiting [data-pending="review"]');
      await decision.waitFor();
      expect(await decision.textContent()).toMatch(/^Waits for an editor/);
      expect(await decision.locator('button[name="approve"]').textContent()).toMatch(/APPROVE/);
      expect(await decision.locator('button[name="deny"]').textContent()).toMatch(/REJECT/);
      seen.push(await page.locator('body').textContent());
      await screenshot(page, 'own-lifecycle-run.png');

      // APPROVE with the waiting panel's approve button (the one place the view offers it): published,
      // on the page and through the API.
      await decision.locator('button[name="approve"]').click();
      await page.locator('.state-now[data-state="published"]').waitFor();
      await page.locator('.status.done').waitFor();
      await page.locator('.diagram g.node.current[data-state="published"]').waitFor();
      await page.locator('table.audit td', { hasText: /^APPROVE/ }).waitFor();
      seen.push(await page.locator('body').textContent());
      const { body } = await api(server.url, 'GET', '/api/runs/post-1');
      expect(body.run).toMatchObject({ machine: 'article', state: 'published', status: 'done' });
      const { body: history } = await api(server.url, 'GET', '/api/runs/post-1/history');
      expect(history.events.map((e: { event: { type: string }; actor?: string }) => [e.event.type, e.actor])).toEqual([
        ['SUBMIT', 'ui'],
        ['APPROVE', 'ui'],
      ]);

      // The editor's deny in the waiting panel sends the config's REJECT: the article goes back to its author.
      expect((await api(server.url, 'POST', '/api/runs', { machine: 'article', id: 'post-2' })).status).toBe(201);
      await page.goto(`${server.url}/#/runs/post-2`);
      await page.locator('.state-now[data-state="draft"]').waitFor();
      await send(page, 'SUBMIT');
      await page.locator('.waiting [data-pending="review"] button[name="deny"]').click();
      await page.locator('.state-now[data-state="draft"]').waitFor();
      await page.locator('.waiting [data-pending="draft"]', { hasText: 'Waits for its author' }).waitFor();
      const { body: denied } = await api(server.url, 'GET', '/api/runs/post-2/history');
      expect(denied.events.at(-1)).toMatchObject({
        event: { type: 'REJECT' },
        actor: 'ui',
        reason: 'denied in the live view',
        after: 'draft',
      });

      // A lifecycle the config lacks (a typo in a bookmarked address): the way to add one is the config.
      await page.goto(`${server.url}/#/lifecycles/articel`);
      await page.locator('.error', { hasText: 'articel' }).waitFor();
      const missing = await page.locator('body').textContent();
      expect(missing).toMatch(/statewright\.config\.ts/);
      seen.push(missing);

      // Nothing the view said sends the user into the package's sources.
      for (const text of seen) {
        expect(text).toBeTypeOf('string');
        expect(text).not.toMatch(intoThePackage);
      }
      // The one failure: the diagram of the lifecycle the config lacks, answered 404.
      expect(failures.filter((failure) => !failure.includes('/api/machines/articel/diagram.svg'))).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

/**
 * Sends `type` with its button on the run page: sent at once for an event with no fields, or, should
 * the view ask for the actor and reason first, confirmed in the form it opens. Resolves once the run
 * has moved on the page.
 */
async function send(page: Page, type: string) {
  const form = page.locator(`form[data-event="${type}"]`);
  const before = await page.locator('.state-now').getAttribute('data-state');
  const moved = `document.querySelector('.state-now')?.getAttribute('data-state') !== ${JSON.stringify(before)}`;
  await form.locator('button[name="send"]').click();
  // An open form whose send button is enabled waits for the user (while sending, the button is disabled).
  await inPage(
    page,
    `${moved} || document.querySelector('form[data-event=${JSON.stringify(type)}].open button[name="send"]:not([disabled])') !== null`,
  );
  const movedNow = await page.evaluate(moved);
  if (!movedNow && (await form.locator('button[name="send"][type="submit"]:not([disabled])').isVisible()))
    await form.locator('button[name="send"]').click();
  await inPage(page, moved);
}
