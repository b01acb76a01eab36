/**
 * What the browser tests of the live view share: waiting on the page, keeping screenshots, and
 * reading the demo's printed lines.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Where screenshots are kept (git-ignored), to look at after a run. */
export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;

/** Resolves once `expression` (run in the page) is true. The test's tsconfig has no DOM types, so it is text. */
export const inPage = (page: Page, expression: string) =>
  page.waitForFunction(expression, undefined, { timeout: 60_000 });

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
