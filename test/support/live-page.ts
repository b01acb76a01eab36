/**
 * What the browser tests of the live view share: waiting on the page, keeping screenshots, and
 * reading the demo's printed lines.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Where screenshots are kept (git-ignored), to look at after a run. */
export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;

const CREDENTIAL = `sessionStorage.getItem('statewright-view-credential')`;

/**
 * Opens the live view as its user does, through the URL serve printed (`<url>/#token=<token>`),
 * and waits until the page has traded the token for its credential and taken it off the address
 * bar; then goes to `route` (e.g. `#/runs/job-1`), if given, within the same tab. On a page that
 * shows the view already the URL is only a hash change and the tab keeps its credential meanwhile:
 * the wait is for a credential other than that one, the trade's.
 */
export async function openView(page: Page, url: string, token: string | undefined, route?: string): Promise<void> {
  const before = page.url().startsWith(`${url}/`)
    ? ((await page.evaluate(CREDENTIAL).catch(() => null)) as string | null)
    : null;
  await page.goto(token ? `${url}/#token=${token}` : `${url}/`);
  if (token)
    await inPage(
      page,
      `!location.hash.includes('token=') && ${CREDENTIAL} !== null && ${CREDENTIAL} !== ${JSON.stringify(before)}`,
    );
  if (route) await page.goto(`${url}/${route}`);
}

/** Every Content-Security-Policy violation the page reports from now on (Chromium logs each as a console message). */
export function cspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/**
 * Resolves with the value of `expression` (run in the page) once it is truthy. The test's tsconfig
 * has no DOM types, so it is text. Read with `page.evaluate` until then, not `page.waitForFunction`:
 * that one evals the expression inside the page, which the view's Content-Security-Policy forbids.
 */
export async function inPage(page: Page, expression: string, timeout = 60_000): Promise<unknown> {
  let value: unknown;
  // A navigation under way destroys the page's context: that try counts as not yet.
  await expect
    .poll(async () => (value = await page.evaluate(expression).catch(() => undefined)), { timeout, interval: 50 })
    .toBeTruthy();
  return value;
}

/** Saves what the page shows as test-artifacts/`name`, and returns the PNG. */
export async function keepScreenshot(page: Page, name: string): Promise<Buffer> {
  const png = await page.screenshot({ fullPage: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, name), png);
  return png;
}

/** Resolves with the first match of `pattern` in what the child writes to stdout. */
export function lineOf(child: { stdout: NodeJS.ReadableStream | null }, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (match) resolve(match);
    });
    child.stdout!.on('end', () =>
      reject(new Error(`the demo ended without printing ${pattern}; it printed:\n${seen}`)),
    );
  });
}
