/**
 * The task lifecycle's statechart in Chromium, at a desktop's 1440x900 and a phone's 390x844:
 * nested boxes, zoom and fit buttons that move the viewport, no sideways scroll on the phone; fitted
 * at a scale whose text reads (at least 0.9 at 1440 px; names and labels 9 px or more on the phone),
 * the viewport's height following the drawing's, and dark under prefers-color-scheme: dark.
 * Needs `npm run build` first. Screenshots are kept in test-artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { inPage, openView } from '../support/live-page.js';
import { startServeProcess } from '../support/serve-process.js';

const root = new URL('../../', import.meta.url).pathname;
const artifacts = join(root, 'test-artifacts');

const transform = (page: Page) => page.locator('.diagram .diagram-content').evaluate((el) => el.style.transform);

/** Waits until the viewport's transform is no longer `before`, and answers the new one. */
async function changedFrom(page: Page, before: string): Promise<string> {
  await inPage(
    page,
    `document.querySelector('.diagram .diagram-content').style.transform !== ${JSON.stringify(before)}`,
    10_000,
  );
  return transform(page);
}

describe('the statechart view', () => {
  it('draws the task lifecycle as nested boxes, zooms, pans and fits, at 1440 px and on a phone', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('statechart-view');
    const serve = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    try {
      mkdirSync(artifacts, { recursive: true });
      for (const [width, height] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await openView(page, serve.url, serve.token, '#/lifecycles/task');
        await page.locator('.diagram svg.statechart').waitFor();
        // Nested: each compound's children inside its <g>, down to Checking's Running.
        await page
          .locator(
            '.diagram g.compound[data-state="Active"] g.compound[data-state="Active.Working"] g.compound[data-state="Active.Working.Checking"] > g.atomic[data-state="Active.Working.Checking.Running"]',
          )
          .waitFor();
        expect(await page.locator('.diagram .initial-dot').count()).toBeGreaterThan(1);
        // Fitted when first shown: at a readable scale, the drawing across the viewport's width at
        // 1440 px; on the phone at least readable, panned, in a viewport taller than the old 60% strip.
        const atFit = String(
          await inPage(
            page,
            `(() => { const v = document.querySelector('.diagram .diagram-viewport');
            const c = document.querySelector('.diagram .diagram-content');
            return v?.dataset.scale && c.style.transform && v.style.height ? c.style.transform : false; })()`,
            10_000,
          ),
        );
        const measured = (await page.evaluate(`(() => {
          const v = document.querySelector('.diagram .diagram-viewport');
          const box = v.getBoundingClientRect();
          const svg = document.querySelector('.diagram svg.statechart').getBoundingClientRect();
          const heights = (selector) => [...document.querySelectorAll(selector)].map((t) => t.getBoundingClientRect().height);
          return { scale: Number(v.dataset.scale), viewport: { left: box.left, right: box.right, height: box.height },
            svg: { left: svg.left, right: svg.right, width: svg.width, height: svg.height },
            names: Math.min(...heights('.diagram g.state text.name')), labels: Math.min(...heights('.diagram g.edge text')) };
        })()`)) as {
          scale: number;
          viewport: { left: number; right: number; height: number };
          svg: { left: number; right: number; width: number; height: number };
          names: number;
          labels: number;
        };
        writeFileSync(join(artifacts, `statechart-task-${width}.json`), JSON.stringify(measured, null, 2));
        expect(measured.names, `state names' height at ${width}px`).toBeGreaterThanOrEqual(10);
        expect(measured.labels, `arrow labels' height at ${width}px`).toBeGreaterThanOrEqual(9);
        // The viewport is as tall as the drawing at its scale, within bounds.
        expect(measured.viewport.height).toBeGreaterThanOrEqual(Math.min(measured.svg.height, 0.8 * height) - 2);
        expect(measured.viewport.height).toBeLessThanOrEqual(0.8 * height + 1);
        if (width === 1440) {
          expect(measured.scale).toBeGreaterThanOrEqual(0.9);
          expect(measured.svg.left).toBeGreaterThanOrEqual(measured.viewport.left - 1);
          expect(measured.svg.right).toBeLessThanOrEqual(measured.viewport.right + 1);
        } else {
          expect(measured.scale).toBeGreaterThanOrEqual(0.7);
          expect(measured.viewport.height).toBeGreaterThan(0.6 * height);
        }
        writeFileSync(join(artifacts, `statechart-task-${width}.png`), await page.screenshot({ fullPage: true }));
        // Dark mode: the drawing's boxes follow the page, no white slab.
        await page.emulateMedia({ colorScheme: 'dark' });
        const fill = String(
          await page.evaluate(
            `getComputedStyle(document.querySelector('.diagram g.compound[data-state="Active"] > rect.box')).fill`,
          ),
        );
        expect(fill).not.toMatch(/rgb\(2[0-9]{2}, 2[0-9]{2}, 2[0-9]{2}\)/);
        writeFileSync(join(artifacts, `statechart-task-${width}-dark.png`), await page.screenshot({ fullPage: true }));
        await page.emulateMedia({ colorScheme: 'light' });

        await page.getByRole('button', { name: 'zoom in' }).click();
        const zoomed = await changedFrom(page, atFit);
        await page.getByRole('button', { name: 'zoom out' }).click();
        const out = await changedFrom(page, zoomed);
        // Dragging pans.
        const box = (await page.locator('.diagram .diagram-viewport').boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(box.x + box.width / 2 - 60, box.y + box.height / 2 + 30, { steps: 4 });
        await page.mouse.up();
        const panned = await changedFrom(page, out);
        // The keyboard: the buttons are focusable and answer Enter; 1:1 goes back to the first view.
        await page.getByRole('button', { name: 'readable size' }).focus();
        await page.keyboard.press('Enter');
        expect(await changedFrom(page, panned)).toBe(atFit);
        writeFileSync(join(artifacts, `statechart-task-${width}-zoomed.png`), await page.screenshot());

        const scroll = await page.evaluate(
          '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
        );
        expect(scroll, `sideways scroll at ${width}px`).toMatchObject({ scroll: expect.any(Number) });
        const { scroll: scrollWidth, client } = scroll as { scroll: number; client: number };
        expect(scrollWidth, `sideways scroll at ${width}px`).toBeLessThanOrEqual(client);
      }
      expect(failures).toEqual([]);
    } finally {
      await serve.stop();
    }
  });
});
