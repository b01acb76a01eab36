/**
 * The live view over machines statewright did not write (test/graph/machine-shapes.ts, from a
 * config), in Chromium: a run inside a parallel state has the active leaf of each region highlighted;
 * the lifecycle page counts runs resting in parallel states, on each region's leaf; a run set aside
 * after a restart (its lifecycle's version changed with no migration) reads set aside with its
 * reason, is listed on its lifecycle page, and is ended from its page. Needs `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { openView } from '../support/live-page.js';
import { api, startServeProcess } from '../support/serve-process.js';
import { shapesConfigDir, writeShapesConfig } from '../support/shapes-config.js';

const root = new URL('../../', import.meta.url).pathname;

/** The data-state of every state the diagram marks with `mark` (current, active), sorted. */
const marked = (page: Page, mark: string) =>
  page
    .locator(`.diagram g.state.${mark}`)
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-state') ?? '').sort());

describe('the live view of any machine', () => {
  it('highlights the leaf of every region, and counts runs in parallel states by region', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = shapesConfigDir('view-parallel');
    const serve = await startServeProcess(dir, ['--create']);
    const start = async (id: string, ...events: string[]) => {
      expect((await api(serve.url, 'POST', '/api/runs', { machine: 'parallelRegions', id })).status).toBe(201);
      for (const type of events)
        expect((await api(serve.url, 'POST', `/api/runs/${id}/events`, { event: { type } })).status).toBe(200);
    };
    await start('exp-1', 'SUBMIT');
    await start('exp-2', 'SUBMIT', 'APPROVE');
    await start('exp-3');
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));

    await openView(page, serve.url, serve.token, '#/runs/exp-1');
    await page.locator('.diagram g.state.current[data-state="checks.finance.pending"]').waitFor();
    expect(await marked(page, 'current')).toEqual(['checks.finance.pending', 'checks.manager.managerApproval']);
    expect(await marked(page, 'active')).toEqual(['checks', 'checks.finance', 'checks.manager']);

    await openView(page, serve.url, serve.token, '#/runs/exp-2');
    await page.locator('.diagram g.state.current[data-state="checks.manager.approved"]').waitFor();
    expect(await marked(page, 'current')).toEqual(['checks.finance.pending', 'checks.manager.approved']);
    // The step that approved is marked as taken: managerApproval to approved, in the manager region.
    await page
      .locator(
        '.diagram g.edge.taken[data-source="checks.manager.managerApproval"][data-target="checks.manager.approved"]',
      )
      .waitFor();

    await openView(page, serve.url, serve.token, '#/lifecycles/parallelRegions');
    await page.locator('.diagram g.state[data-state="checks.finance.pending"] > .count').waitFor();
    const counts = await page
      .locator('.diagram g.state:has(> .count)')
      .evaluateAll((nodes) =>
        Object.fromEntries(
          nodes.map((node) => [
            node.getAttribute('data-state'),
            node.querySelector(':scope > .count text')?.textContent,
          ]),
        ),
      );
    expect(counts).toEqual({
      draft: '1',
      'checks.manager.managerApproval': '1',
      'checks.manager.approved': '1',
      'checks.finance.pending': '2',
    });
    expect(await page.locator('.lifecycle p').filter({ hasText: 'runs:' }).textContent()).toMatch(/^3 runs:/);
    expect(await page.locator('.count-chip').count()).toBe(3);
    expect(failures).toEqual([]);
  });

  it('shows a run set aside after a restart as set aside, with its reason, and ends it', async () => {
    const dir = shapesConfigDir('view-set-aside');
    const first = await startServeProcess(dir, ['--create']);
    expect((await api(first.url, 'POST', '/api/runs', { machine: 'rootEvent', id: 'art-1' })).status).toBe(201);
    expect((await api(first.url, 'POST', '/api/runs/art-1/events', { event: { type: 'SUBMIT' } })).status).toBe(200);
    expect(await first.stop()).toBe(0);
    // The next deployment's rootEvent is v2 with no migration: art-1, stored by v1, cannot be restored.
    writeShapesConfig(dir, 2);
    const serve = await startServeProcess(dir, []);

    const { body } = await api(serve.url, 'GET', '/api/runs/art-1');
    expect(body.run).toMatchObject({ status: 'active', setAside: { reason: expect.stringContaining('v1') } });
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));

    await openView(page, serve.url, serve.token, '#/lifecycles/rootEvent');
    await page.locator('table.set-aside tbody tr', { hasText: 'art-1' }).waitFor();

    await openView(page, serve.url, serve.token, '#/runs/art-1');
    await page.locator('.set-aside-panel').waitFor();
    expect(await page.locator('.summary .status').textContent()).toBe('set aside');
    expect(await page.locator('.set-aside-panel .reason').textContent()).toBe(body.run.setAside.reason);
    await page.locator('.set-aside-panel input[name="actor"]').fill('ana');
    await page.locator('.set-aside-panel input[name="end-reason"]').fill('v1 retired; started again');
    await page.locator('.set-aside-panel button[name="end"]').click();
    // It asks first; nothing is ended until the second click.
    await page.locator('.set-aside-panel .confirm').waitFor();
    expect((await api(serve.url, 'GET', '/api/runs/art-1')).body.run.status).toBe('active');
    await page.locator('.set-aside-panel button[name="end"]').click();
    await page.locator('.summary .status', { hasText: 'stopped' }).waitFor();
    expect(await page.locator('.set-aside-panel').count()).toBe(0);
    const history = (await api(serve.url, 'GET', '/api/runs/art-1/history')).body.events;
    expect(history.at(-1)).toMatchObject({ actor: 'ana', reason: 'v1 retired; started again' });
    expect(failures).toEqual([]);
  });
});
