/**
 * The live view of runs of machines with parallel states, `after` delays, an invoked actor and a
 * spawned child (test/fixtures/words-machines.ts, from a user's config), in Chromium: the explain
 * panel, the audit trail and the event buttons say XState's own events in words ("after 1 h",
 * "when friend-ada is done") and name no `xstate.*` event. Needs `npm run build` first.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../support/child-processes.js';
import { launchBrowser } from '../support/browser.js';
import { openView } from '../support/live-page.js';
import { startServeProcess } from '../support/serve-process.js';
import { machinesConfigDir } from '../support/shapes-config.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));
const words = fileURLToPath(new URL('../fixtures/words-machines.ts', import.meta.url));

/** The run page's text a person reads, once its explain panel and audit trail show `waitFor`. */
async function runPage(page: Page, url: string, id: string, waitFor: string): Promise<string> {
  await page.goto(`${url}#/runs/${id}`);
  // Read where a person reads it: the chart folds XState's delays into a muted line, naming them in its tooltip only.
  await page
    .locator('.explain, table.audit, .actions')
    .getByText(waitFor, { exact: false })
    .first()
    .waitFor({ timeout: 30_000 });
  return (await page.locator('section.run').textContent()) ?? '';
}

describe('the live view in words', () => {
  it("shows XState's own moves in words in the explain panel, the audit trail and the buttons", {
    timeout: 300_000,
  }, async () => {
    const cwd = machinesConfigDir('ui-words', words, 'WORDS_MACHINES');
    const serve = await startServeProcess(cwd, ['--create']);
    const cli = (...args: string[]) => startCommand(process.execPath, [bin, ...args], { cwd, reject: false });
    await cli('start', 'expense', '--id', 'e1');
    for (const type of ['SUBMIT', 'RECEIPT_OK']) await cli('send', 'e1', JSON.stringify({ type }));
    await cli('start', 'party', '--id', 'p1');
    const browser = await launchBrowser(join(cwd, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    try {
      await openView(page, serve.url, serve.token);
      const checks = await runPage(page, serve.url, 'e1', 'when both regions of checks finish');
      expect(checks).toContain('moves on its own');
      // The one button is the event a person sends; the region's done event is no button.
      expect(await page.locator('.actions button').allInnerTexts()).toEqual([expect.stringContaining('BUDGET_OK')]);
      await page.locator('.actions button', { hasText: 'BUDGET_OK' }).click();
      const approval = await runPage(page, serve.url, 'e1', 'after managerTimeout (2 days)');
      expect(approval).toContain('after 1 h');

      await cli('send', 'p1', '{"type":"WAVE_ADA"}');
      const party = await runPage(page, serve.url, 'p1', 'when friend-ada is done');
      expect(party).toContain('WAVE_ADA');
      for (const text of [checks, approval, party]) expect(text).not.toMatch(/xstate\./);
      expect(failures).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
