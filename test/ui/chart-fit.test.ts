/**
 * Charts that read (issue 43), in Chromium against `statewright demo`: at 1440x900 the task run's
 * chart is first shown at a readable scale with its current state (`Complete`, far from the start)
 * in the frame; **fit** puts the whole chart in the frame (the task run's and the codon lifecycle's),
 * **1:1** brings the readable view back; the zoom controls sit in a bar of their own, never over a
 * label; labels are 11 px at scale 1; the events only agents and timers send are folded into one
 * muted line per arrow on the session's chart, written out by "all events"; and the chart takes the
 * width the explain panel does not need; and on the demo's pages every text reads at WCAG AA
 * contrast, light and dark. Needs `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { contrastFailures } from '../support/contrast.js';
import { startDemo } from '../support/demo-process.js';
import { inPage, keepScreenshot, openView } from '../support/live-page.js';

const root = new URL('../../', import.meta.url).pathname;

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
interface Frame {
  scale: number;
  viewport: Rect;
  tools: Rect;
  svg: Rect;
  current: Rect | null;
  transform: string;
}

/** Where the viewport, its toolbar, the drawing and the current state are on the screen. */
const frame = (page: Page) =>
  page.evaluate(`(() => {
    const rect = (el) => { if (!el) return null; const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
    const v = document.querySelector('.diagram .diagram-viewport');
    return { scale: Number(v.dataset.scale), viewport: rect(v), tools: rect(document.querySelector('.diagram .diagram-tools')),
      svg: rect(document.querySelector('.diagram svg.statechart')),
      current: rect(document.querySelector('.diagram g.state.current > rect.box')),
      transform: document.querySelector('.diagram .diagram-content').style.transform };
  })()`) as Promise<Frame>;

const inside = (inner: Rect, outer: Rect) =>
  inner.left >= outer.left - 1 &&
  inner.right <= outer.right + 1 &&
  inner.top >= outer.top - 1 &&
  inner.bottom <= outer.bottom + 1;

/** Waits for the viewport's transform to differ from `before`. */
const moved = (page: Page, before: string) =>
  inPage(
    page,
    `document.querySelector('.diagram .diagram-content').style.transform !== ${JSON.stringify(before)}`,
    10_000,
  );

describe('charts that read', () => {
  it('fits, shows the current state readable, keeps labels clear of the controls, and folds the agents’ events', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('chart-fit');
    const { url, token } = await startDemo(dir, 20);
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.setViewportSize({ width: 1440, height: 900 });

    // The task run rests in Complete, at the far end of a chart too big to show whole at a readable scale.
    await openView(page, url, token, '#/runs/task');
    await page.locator('.state-now[data-state="Complete"]').waitFor({ timeout: 60_000 });
    await page.locator('.diagram g.state.current[data-state="Complete"]').waitFor();
    await inPage(page, `document.querySelector('.diagram .diagram-viewport')?.dataset.scale`);
    const first = await frame(page);
    expect(first.scale, 'readable when first shown').toBeGreaterThanOrEqual(0.9);
    expect(inside(first.current!, first.viewport), 'the current state in the frame').toBe(true);
    // The controls are a bar above the drawing, not over it.
    expect(first.tools.bottom).toBeLessThanOrEqual(first.viewport.top + 1);
    // Labels 11 px and names 13 px at scale 1.
    const sizes = (await page.evaluate(`(() => {
      const size = (selector) => Math.min(...[...document.querySelectorAll(selector)].map((t) => parseFloat(getComputedStyle(t).fontSize)));
      return { labels: size('.diagram g.edge text'), names: size('.diagram g.state text.name') };
    })()`)) as { labels: number; names: number };
    expect(sizes.labels).toBeGreaterThanOrEqual(11);
    expect(sizes.names).toBeGreaterThanOrEqual(11);
    // The chart takes the width the explain panel does not need.
    const share = (await page.evaluate(
      `document.querySelector('.diagram').getBoundingClientRect().width / document.querySelector('main').getBoundingClientRect().width`,
    )) as number;
    expect(share).toBeGreaterThan(0.65);
    await keepScreenshot(page, 'chart-fit-task-first.png');

    // Zoomed in and dragged away, fit shows the whole chart in the frame.
    await page.getByRole('button', { name: 'zoom in' }).click();
    const zoomed = String((await moved(page, first.transform)) && (await frame(page)).transform);
    await page.getByRole('button', { name: 'fit' }).click();
    await moved(page, zoomed);
    const fitted = await frame(page);
    expect(inside(fitted.svg, fitted.viewport), 'the whole task chart in the frame').toBe(true);
    expect(fitted.scale).toBeLessThan(first.scale);
    await keepScreenshot(page, 'chart-fit-task-fit.png');
    // 1:1 goes back to the readable view around the current state.
    await page.getByRole('button', { name: 'readable size' }).click();
    await moved(page, fitted.transform);
    const back = await frame(page);
    expect(back.transform).toBe(first.transform);
    expect(inside(back.current!, back.viewport)).toBe(true);

    // The codon lifecycle, the widest chart: fit shows it whole.
    await openView(page, url, token, '#/lifecycles/codon');
    await page.locator('.diagram svg.statechart').waitFor();
    const codon = String(await inPage(page, `document.querySelector('.diagram .diagram-content')?.style.transform`));
    await page.getByRole('button', { name: 'fit' }).click();
    await moved(page, codon);
    const codonFit = await frame(page);
    expect(inside(codonFit.svg, codonFit.viewport), 'the whole codon chart in the frame').toBe(true);

    // The session's chart: its agents' events folded into one muted line per arrow, all of them on request.
    await openView(page, url, token, '#/runs/session-1');
    await page.locator('.diagram svg.statechart').waitFor();
    const texts = () =>
      page.locator('.diagram g.edge text').evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''));
    const folded = await texts();
    expect(folded.some((text) => /internal events/.test(text))).toBe(true);
    expect(folded).not.toContain('agent.assistant');
    expect(await page.locator('.diagram g.edge text.quiet').count()).toBeGreaterThan(0);
    expect(await page.locator('.diagram g.edge[data-quiet]').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'all events' }).click();
    await inPage(
      page,
      `[...document.querySelectorAll('.diagram g.edge text')].some((t) => t.textContent === 'agent.assistant')`,
    );
    expect((await texts()).length).toBeGreaterThan(folded.length);
    expect(await page.getByRole('button', { name: 'fold internal events' }).getAttribute('aria-pressed')).toBe('true');

    // The demo's pages, every text at AA contrast in light and dark: a session waiting for approval,
    // a held deploy, a finished task, the runs list with every status, a lifecycle with its counts.
    for (const [width, height] of [
      [1440, 900],
      [390, 844],
    ] as const)
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        for (const [route, ready] of [
          ['#/runs/session-1', 'section.waiting button[name="approve"]'],
          ['#/runs/deploy-1', '.diagram g.state.current'],
          ['#/runs/task', '.diagram g.state.current'],
          ['#/', 'tr[data-run="deploy-1"]'],
          ['#/lifecycles/execution', '.diagram g.count text'],
        ] as const) {
          await openView(page, url, token, route);
          await page.locator(ready).first().waitFor();
          const { failures: low, measured } = await contrastFailures(page);
          expect(measured).toBeGreaterThan(10);
          expect(low, `texts below AA on ${route} at ${width} px, ${scheme}`).toEqual([]);
        }
      }
    expect(failures).toEqual([]);
  });
});
