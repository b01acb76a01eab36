import chromium from '@sparticuz/chromium';
import { chromium as playwright, type BrowserContext } from 'playwright-core';
import { onTestFinished } from 'vitest';

/**
 * Flags of @sparticuz/chromium's defaults that weaken the browser's own security (same-origin
 * policy, site isolation, mixed content). A real user's browser has them on, and the tests of what
 * a hostile page can do to `serve` must meet the same browser.
 */
const WEAKENING = ['--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials'];

/**
 * Headless Chromium with a fresh profile in `profileDir`, closed when the test ends. The browser is
 * the one @sparticuz/chromium ships inside its npm package (unpacked once into the temp folder), so
 * every machine runs the same one with nothing installed by hand. The background-networking flags
 * matter: without them Chromium's own connections are refused on a closed network and the page
 * waits on them.
 */
export async function launchBrowser(profileDir: string, extraArgs: readonly string[] = []): Promise<BrowserContext> {
  const args = chromium.args.filter((arg) => !WEAKENING.includes(arg));
  const context = await playwright.launchPersistentContext(profileDir, {
    executablePath: await chromium.executablePath(),
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      ...args,
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      ...extraArgs,
    ],
  });
  onTestFinished(() => context.close());
  return context;
}
