/**
 * The live view over runs on Restate, in a real browser: `statewright serve --engine restate:`
 * (the built CLI, as a user runs it) beside a Restate node from the npm package with statewright's
 * endpoint registered on it. The runs list shows a run started on Restate, its page draws it on its
 * statechart with the state it is in and its explain panel saying it lives in its object on Restate,
 * the view's button sends an event that Restate applies (the audit trail names the view), and an
 * event another client sends moves the page live. Needs
 * `npm run build` (the bin and dist/ui).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { startRestateHost, type RestateHost } from '../restate/restate-host.js';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { inPage, keepScreenshot, openView } from '../support/live-page.js';
import { startServeProcess } from '../support/serve-process.js';

let host: RestateHost;
beforeAll(async () => {
  host = await startRestateHost({ machines: lifecycles });
}, 120_000);
afterAll(() => host?.stop());

/** The state the diagram highlights as current, once it is `state`. */
const highlighted = (page: Page, state: string) =>
  inPage(page, `document.querySelector('.diagram g.node.current title')?.textContent === ${JSON.stringify(state)}`);

it('lists a run on Restate, draws it on its statechart, moves it with its buttons and follows another client', async () => {
  expect(existsSync(new URL('../../dist/ui/index.html', import.meta.url)), 'run npm run build').toBe(true);
  const dir = testDir('restate-view');
  await host.runtime.start('execution', { id: 'on-restate' });
  await host.runtime.dispatch('on-restate', { type: 'ENQUEUE' }, { actor: 'ci', reason: 'pushed' });
  const serve = await startServeProcess(dir, [
    '--engine',
    `restate:${host.node.ingress}`,
    '--restate-admin',
    host.node.admin,
    '--restate-token',
    host.node.token,
  ]);
  const browser = await launchBrowser(join(dir, 'chromium-profile'));
  const page = await browser.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));

  await openView(page, serve.url, serve.token);
  await page.locator('tr[data-run="on-restate"]').waitFor({ timeout: 60_000 });
  await page.goto(`${serve.url}/#/runs/on-restate`);
  await highlighted(page, 'queued');
  expect(await page.locator('.state-now').textContent()).toBe('queued');
  // The explain panel says where the run lives: its object on Restate, not asleep in a store.
  await page
    .locator('section.explain dd', {
      hasText: 'on Restate: its virtual object statewright-execution (key on-restate), served by the worker',
    })
    .waitFor();

  // The view's button: the event goes through serve to the run's object on Restate.
  await page.locator('form[data-event="START"] button[name="send"]').click();
  await highlighted(page, 'running');
  const history = await host.runtime.history('on-restate');
  expect(history.map((entry) => [entry.event.type, entry.actor])).toEqual([
    ['ENQUEUE', 'ci'],
    ['START', 'ui'],
  ]);

  // Another client's event reaches the page on the step stream.
  await host.runtime.dispatch('on-restate', { type: 'SUCCEED' }, { actor: 'ci' });
  await highlighted(page, 'success');
  await page.locator('table.audit td', { hasText: 'SUCCEED' }).waitFor();
  await keepScreenshot(page, 'restate-run-page.png');
  expect(failures).toEqual([]);
});
