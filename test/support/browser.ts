import { existsSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { onTestFinished } from 'vitest';

/** Debian's Chromium, which the browser tests drive (playwright-core downloads no browser). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium with a fresh profile in `profileDir`, closed when the test ends. The
 * background-networking flags matter: without them Chromium's own connections are refused on a
 * closed network and the page waits on them.
 */
export async function launchBrowser(profileDir: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`The browser tests drive Chromium at ${CHROMIUM}, which is not installed: run apt-get install -y chromium (as root; .ci/run does it).`);
  }
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  onTestFinished(() => context.close());
  return context;
}
