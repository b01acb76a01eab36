/**
 * Screenshots of every page of the live view at 1440x900 and 390x844, light and dark, into
 * docs/screenshots/, so a reviewer sees what a user sees: `npm run screenshots` (after `npm run
 * build`). It runs `statewright demo` on a temporary store until every demo run has finished or
 * waits for a person, and drives the Chromium the browser tests use (@sparticuz/chromium, through
 * playwright-core). Each shot is the first screen, as the page opens (what a user sees before
 * scrolling), which also keeps the committed files small.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as playwright } from 'playwright-core';

const root = new URL('../', import.meta.url).pathname;
const out = join(root, 'docs/screenshots');
const dir = mkdtempSync(join(tmpdir(), 'statewright-screenshots-'));

/** The pages, each with what shows once it is drawn (and the button that opens it, for a form). */
const PAGES = [
  { name: 'runs', route: '#/', ready: 'tr[data-run="deploy-1"]' },
  { name: 'start-a-run', route: '#/', ready: 'tr[data-run="deploy-1"]', click: 'button[name="start-run"]' },
  { name: 'run-waiting-approval', route: '#/runs/session-1', ready: 'section.waiting button[name="approve"]' },
  { name: 'run-held', route: '#/runs/deploy-1', ready: '.diagram g.state.current' },
  { name: 'run-finished', route: '#/runs/task', ready: 'ol.timeline li' },
  { name: 'lifecycle', route: '#/lifecycles/execution', ready: '.diagram g.count' },
];
const SIZES = [
  [1440, 900],
  [390, 844],
];

const demo = spawn(
  process.execPath,
  [join(root, 'bin/statewright.js'), 'demo', '--store', `sqlite:${join(dir, 'state.db')}`, '--create', '--port', '0'],
  { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], detached: true },
);
/** Resolves with the first match of `pattern` in what the demo prints. */
const printed = (pattern) =>
  new Promise((resolve, reject) => {
    let seen = '';
    demo.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = seen.match(pattern);
      if (match) resolve(match);
    });
    demo.on('exit', () => reject(new Error(`the demo ended before printing ${pattern}:\n${seen}`)));
  });
const viewUrl = printed(/The live view: (http:\/\/\S+?)\/#token=(\S+)\n/);
const settled = printed(/Every demo run has finished or waits for you/);

let browser;
try {
  const [, url, token] = await viewUrl;
  await settled;
  mkdirSync(out, { recursive: true });
  browser = await playwright.launchPersistentContext(join(dir, 'chromium-profile'), {
    executablePath: await chromium.executablePath(),
    headless: true,
    args: [...chromium.args, '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  const page = await browser.newPage();
  await page.goto(`${url}/#token=${token}`);
  await page.locator('tr[data-run]').first().waitFor();
  const shots = [];
  const shoot = async (name, width, scheme) => {
    const file = join(out, `${name}-${width}-${scheme}.png`);
    await page.screenshot({ path: file });
    shots.push(file);
  };
  for (const [width, height] of SIZES)
    for (const scheme of ['light', 'dark']) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      for (const { name, route, ready, click } of PAGES) {
        await page.goto(`${url}/${route}`);
        await page.locator(ready).first().waitFor();
        if (click) await page.locator(click).click();
        // The chart is fitted once drawn.
        if (await page.locator('.diagram').count())
          await page.locator('.diagram .diagram-viewport[data-scale]').waitFor();
        await shoot(name, width, scheme);
      }
    }
  // The page a stale or missing token gets: the tab's credential forgotten, an old token in the link.
  await page.evaluate('sessionStorage.clear()');
  for (const [width, height] of SIZES)
    for (const scheme of ['light', 'dark']) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('about:blank');
      await page.goto(`${url}/#token=stale`);
      await page.locator('main h1').waitFor();
      await shoot('open-the-view', width, scheme);
    }
  const bytes = shots.reduce((sum, file) => sum + statSync(file).size, 0);
  console.log(`${shots.length} screenshots in docs/screenshots/ (${Math.round(bytes / 1024)} KiB)`);
} finally {
  await browser?.close();
  process.kill(-demo.pid, 'SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
