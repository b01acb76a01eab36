/**
 * The run page puts the person first (issue 43), in Chromium against `statewright serve` with an
 * expense lifecycle of a config beside the built-ins: what the run waits for and the buttons that
 * decide it come before the chart, the panel's top within the first 900 px at 1440x900 and on screen
 * at 390x844; each action once (the approval's event is not offered again under "Send an event");
 * an approval that ends the run in a done outcome is neither red nor asked about, a denial that
 * fails it is; a timeline of the run's stays with their durations beside the audit trail; and every
 * text at WCAG AA contrast over its background, light and dark, on every page. Needs `npm run build`.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { contrastFailures } from '../support/contrast.js';
import { inPage, keepScreenshot, openView } from '../support/live-page.js';
import { api, startServeProcess } from '../support/serve-process.js';

const root = new URL('../../', import.meta.url).pathname;

/** An expense: submitted, then waiting for a manager who approves (done) or rejects (failed, by its name). */
function writeExpenseConfig(dir: string) {
  const xstate = pathToFileURL(createRequire(import.meta.url).resolve('xstate')).href;
  writeFileSync(
    join(dir, 'statewright.config.mjs'),
    `import { createMachine } from '${xstate}';
const machine = createMachine({
  id: 'expense',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: { on: { APPROVE: 'approved', REJECT: 'rejected', NOTE: 'review' } },
    approved: { type: 'final' },
    rejected: { type: 'final' },
  },
});
export default {
  machines: [{
    name: 'expense', machine, version: 1, summary: 'an expense a manager approves',
    waitsFor: { review: { summary: 'a manager', approve: { type: 'APPROVE' }, deny: { type: 'REJECT' } } },
  }],
};
`,
  );
}

/** Where the waiting panel's top is, and how tall the page's window is. */
const panelTop = (page: Page) =>
  page.evaluate(`(() => {
    const panel = document.querySelector('section.waiting');
    const chart = document.querySelector('.diagram');
    return { top: panel.getBoundingClientRect().top + scrollY, chart: chart ? chart.getBoundingClientRect().top + scrollY : null,
      scrollY, height: innerHeight };
  })()`) as Promise<{ top: number; chart: number | null; scrollY: number; height: number }>;

describe('the run page', () => {
  it('shows what the run waits for first, each action once, approvals as outcomes, its timeline, and reads in light and dark', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('run-page');
    writeExpenseConfig(dir);
    const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
    const start = async (id: string, ...events: string[]) => {
      expect((await api(serve.url, 'POST', '/api/runs', { machine: 'expense', id })).status).toBe(201);
      for (const type of events)
        expect((await api(serve.url, 'POST', `/api/runs/${id}/events`, { event: { type } })).status).toBe(200);
    };
    await start('exp-1', 'SUBMIT');
    await start('exp-2', 'SUBMIT');
    await start('exp-3', 'SUBMIT', 'NOTE', 'NOTE', 'REJECT');
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    try {
      for (const [width, height] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await openView(page, serve.url, serve.token, '#/runs/exp-1');
        await page.locator('section.waiting [data-pending="review"] button[name="approve"]').waitFor();
        await page.locator('.diagram svg.statechart').waitFor();
        const at = await panelTop(page);
        // Above the chart, and on the first screen without scrolling.
        expect(at.chart, 'the chart comes after the waiting panel').toBeGreaterThan(at.top);
        expect(at.scrollY).toBe(0);
        expect(at.top, `the waiting panel's top at ${width}x${height}`).toBeLessThan(height - 60);
        await keepScreenshot(page, `run-page-${width}.png`);
      }
      await page.setViewportSize({ width: 1440, height: 900 });
      await openView(page, serve.url, serve.token, '#/runs/exp-1');
      const approve = page.locator('section.waiting button[name="approve"]');
      await approve.waitFor();
      // Each action once: APPROVE and REJECT are the panel's; "Send an event" offers NOTE alone.
      await page.locator('section.actions form[data-event="NOTE"]').waitFor();
      expect(
        await page
          .locator('section.actions form[data-event]')
          .evaluateAll((forms) => forms.map((f) => f.dataset.event)),
      ).toEqual(['NOTE']);
      // An approval is the outcome the run waits for: not red, and sent without a warning.
      expect(String(await approve.getAttribute('class'))).not.toMatch(/danger/);
      expect(await page.locator('section.waiting button[name="deny"]').getAttribute('class')).toMatch(/danger/);
      await approve.click();
      await page.locator('.state-now[data-state="approved"]').waitFor();
      expect(await page.locator('[role="alertdialog"], .confirm').count()).toBe(0);
      expect(await page.locator('.summary .status').textContent()).toBe('done');
      // A denial that ends the run in a failure asks first.
      await openView(page, serve.url, serve.token, '#/runs/exp-2');
      await page.locator('section.waiting button[name="deny"]').click();
      await page.locator('[role="alertdialog"]', { hasText: 'REJECT' }).waitFor();
      await page.locator('[role="alertdialog"] button[name="dismiss"]').click();
      expect((await api(serve.url, 'GET', '/api/runs/exp-2')).body.run.state).toBe('review');

      // The timeline: a row per stay, its duration, the last one growing while the run rests there.
      await page.locator('ol.timeline li[data-seq="1"]').waitFor();
      const rows = (await page.locator('ol.timeline li').evaluateAll((items) =>
        items.map((li) => ({
          state: li.querySelector('.timeline-state')?.textContent,
          took: li.querySelector('.timeline-took')?.textContent,
          open: li.classList.contains('open'),
        })),
      )) as Array<{ state: string; took: string; open: boolean }>;
      expect(rows.map((row) => row.state)).toEqual(['draft', 'review']);
      for (const row of rows) expect(row.took).toMatch(/^\d+(\.\d)? (ms|s|min)/);
      expect(rows.map((row) => row.open)).toEqual([false, true]);
      // Beside the audit trail at 1440 px.
      const beside = (await page.evaluate(`(() => {
        const t = document.querySelector('ol.timeline').getBoundingClientRect();
        const a = document.querySelector('table.audit').getBoundingClientRect();
        return { timelineRight: t.right, auditLeft: a.left, timelineTop: t.top, auditTop: a.top };
      })()`)) as { timelineRight: number; auditLeft: number; timelineTop: number; auditTop: number };
      expect(beside.timelineRight).toBeLessThanOrEqual(beside.auditLeft);
      expect(Math.abs(beside.timelineTop - beside.auditTop)).toBeLessThan(40);
      // Steps that keep the run where it is (two NOTEs) fold into their stay; a finished run's last stay is closed.
      await openView(page, serve.url, serve.token, '#/runs/exp-3');
      await page.locator('ol.timeline li[data-seq="4"]').waitFor();
      expect(
        await page
          .locator('ol.timeline li')
          .evaluateAll((items) =>
            items.map((li) => [li.querySelector('.timeline-state')?.textContent, li.classList.contains('open')]),
          ),
      ).toEqual([
        ['draft', false],
        ['review', false],
        ['rejected', false],
      ]);
      expect(await page.locator('ol.timeline li[data-seq="1"] .timeline-took').textContent()).toMatch(
        /^2 steps in it, /,
      );

      // Every text at AA contrast, light and dark, on each page at both widths.
      for (const [width, height] of [
        [1440, 900],
        [390, 844],
      ] as const)
        for (const scheme of ['light', 'dark'] as const) {
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme: scheme });
          for (const [route, ready] of [
            ['#/runs/exp-2', 'section.waiting button[name="approve"]'],
            ['#/runs/exp-3', 'ol.timeline li[data-seq="4"]'],
            ['#/', 'tr[data-run="exp-1"]'],
            ['#/lifecycles/expense', '.diagram g.count text'],
          ] as const) {
            await openView(page, serve.url, serve.token, route);
            await page.locator(ready).first().waitFor();
            if (route !== '#/') {
              await page.locator('.diagram svg.statechart').waitFor();
              await inPage(page, `document.querySelector('.diagram .diagram-viewport')?.dataset.scale`);
            }
            const { failures: low, measured } = await contrastFailures(page);
            expect(measured, `texts measured on ${route}`).toBeGreaterThan(10);
            expect(low, `texts below AA on ${route} at ${width} px, ${scheme}`).toEqual([]);
          }
          await keepScreenshot(page, `run-page-exp-3-${width}-${scheme}.png`);
        }
      expect(failures).toEqual([]);
    } finally {
      await serve.stop();
    }
  });
});
