/**
 * The live view's runs list as a person meets it at 1440x900, in Chromium against `statewright
 * serve` with a config of one's own (an `expense` lifecycle with an input schema, beside the
 * built-ins): 30 and more rows on the screen, one line each; the counts by status at the top from
 * the store's counts, in the words of the status column, which the status filter offers; the state
 * filter grouped by lifecycle; a rejected expense (its lifecycle's `outcomes`) read as done, not
 * failed; no owner column on one host; a note only on active runs; and a run
 * started from the view through a form made from the lifecycle's input schema, a refusal shown as
 * the API's typed error; on a `serve --store memory`, the empty list's hint points at the view's
 * own start form, not at a CLI whose run would land elsewhere. Needs `npm run build` first (the bin
 * and dist/ui).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { inPage, keepScreenshot, openView } from '../support/live-page.js';
import { api, startServeProcess } from '../support/serve-process.js';

const require = createRequire(import.meta.url);
const xstate = pathToFileURL(require.resolve('xstate')).href;
const zod = pathToFileURL(join(dirname(require.resolve('zod')), 'index.js')).href;

/** An expense: drafted, submitted, then approved or rejected by a person; started with what it is for. */
const CONFIG = `import { createMachine } from '${xstate}';
import { z } from '${zod}';
const machine = createMachine({
  id: 'expense',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: { on: { APPROVE: 'approved', REJECT: 'rejected' } },
    approved: { type: 'final' },
    rejected: { type: 'final' },
  },
});
export default {
  machines: [{
    name: 'expense',
    version: 1,
    summary: 'an expense a person approves or rejects',
    machine,
    input: z.object({
      title: z.string().min(1),
      amount: z.number().positive(),
      currency: z.enum(['EUR', 'USD']),
      urgent: z.boolean().optional(),
      notes: z.string().optional(),
      lines: z.array(z.object({ what: z.string(), amount: z.number() })).optional(),
    }),
    // A rejected expense is an outcome, not a failure.
    outcomes: { rejected: 'done' },
    waitsFor: { review: { summary: 'a person to approve the expense', approve: { type: 'APPROVE' }, deny: { type: 'REJECT' } } },
  }],
};
`;

/** Runs started and moved through the API: 30 executions and 15 expenses, in every kind of status. */
async function seed(url: string) {
  const run = async (machine: string, id: string, ...events: string[]) => {
    expect((await api(url, 'POST', '/api/runs', { machine, id, input: {} })).status).toBe(201);
    for (const type of events)
      expect((await api(url, 'POST', `/api/runs/${id}/events`, { event: { type } })).status).toBe(200);
  };
  const n = (i: number) => String(i).padStart(2, '0');
  for (let i = 1; i <= 30; i++) {
    const events =
      i <= 10 ? [] : i <= 16 ? ['ENQUEUE'] : i <= 22 ? ['SKIP'] : i <= 26 ? ['CANCEL'] : ['ENQUEUE', 'FAIL'];
    await run('execution', `exec-${n(i)}`, ...events);
  }
  for (let i = 1; i <= 15; i++) {
    const events = i <= 5 ? [] : i <= 10 ? ['SUBMIT', 'REJECT'] : i <= 14 ? ['SUBMIT', 'APPROVE'] : ['SUBMIT'];
    await run('expense', `expense-${n(i)}`, ...events);
  }
}

/** The list's rows as the page lays them out: id, status word, note, and where each row is. */
async function rows(page: Page) {
  return page.locator('table.runs tbody tr').evaluateAll((trs) =>
    trs.map((tr) => {
      const cell = (name: string) => tr.querySelector(`td[data-label="${name}"]`)!;
      const id = cell('run');
      const box = tr.getBoundingClientRect();
      return {
        id: tr.getAttribute('data-run')!,
        status: cell('status').textContent,
        note: cell('note').textContent,
        top: box.top,
        bottom: box.bottom,
        idCut: id.scrollWidth > id.clientWidth,
      };
    }),
  );
}

describe('the runs list at 1440x900', () => {
  it('fits 30+ rows with counts by status, filters in the column words, and starts a run from a form', {
    timeout: 300_000,
  }, async () => {
    const cwd = testDir('runs-list');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, 'statewright.config.mjs'), CONFIG);
    const serve = await startServeProcess(cwd, ['--store', `sqlite:${join(cwd, 'state.db')}`, '--create']);
    const browser = await launchBrowser(join(cwd, 'chromium-profile'));
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    try {
      await seed(serve.url);
      await openView(page, serve.url, serve.token);
      await inPage(page, `document.querySelectorAll('table.runs tbody tr').length === 45`);

      // Dense: 30 and more whole rows within the first 900 px, each one line, no id cut or wrapped.
      const shown = await rows(page);
      const onScreen = shown.filter((row) => row.bottom <= 900);
      expect(onScreen.length, JSON.stringify(shown.slice(0, 3))).toBeGreaterThanOrEqual(30);
      expect(shown.every((row) => row.bottom - row.top < 24 && !row.idCut)).toBe(true);

      // The counts: every run, by the words the status column shows, from the store's counts.
      await inPage(page, `document.querySelector('.run-counts') !== null`);
      const counts = await page
        .locator('.run-counts button')
        .evaluateAll((buttons) =>
          buttons.map((b) => [b.getAttribute('data-status'), Number(b.querySelector('strong')!.textContent)]),
        );
      const column: Record<string, number> = {};
      for (const row of shown) column[row.status!] = (column[row.status!] ?? 0) + 1;
      expect(Object.fromEntries(counts)).toEqual({ '': 45, ...column });
      expect(column).toEqual({ active: 22, done: 9, failed: 4, cancelled: 4, skipped: 6 });
      expect(shown.filter((row) => row.id >= 'expense-06' && row.id <= 'expense-10').map((row) => row.status)).toEqual(
        Array(5).fill('done'),
      );
      // The status filter offers the column's words, in the counts' order.
      const offered = await page.locator('select[name="status"] option').allTextContents();
      expect(offered).toEqual(['all', ...counts.slice(1).map(([word]) => word)]);

      // A finished run's row says nothing its status does not; an active run's note says what moves it.
      for (const row of shown) {
        if (row.status === 'active') expect(row.note, row.id).not.toBe('');
        else expect(row.note, row.id).toBe('');
      }
      // One host: no owner column.
      expect(await page.locator('table.runs th').allTextContents()).toEqual([
        'run',
        'lifecycle',
        'state',
        'status',
        'started',
        'last step',
        'duration',
        'note',
      ]);
      // The state filter, grouped by lifecycle.
      const groups = await page
        .locator('select[name="state"] optgroup')
        .evaluateAll((gs) => gs.map((g) => g.getAttribute('label')));
      expect(groups).toContain('execution');
      expect(groups).toContain('expense');
      await page.locator('select[name="state"]').selectOption({ label: 'rejected' });
      await inPage(
        page,
        `(() => { const ids = [...document.querySelectorAll('tr[data-run]')].map((r) => r.dataset.run); return ids.length === 5 && ids.every((id) => id.startsWith('expense-')); })()`,
      );
      expect(await page.locator('select[name="machine"]').inputValue()).toBe('expense');
      await page.locator('select[name="machine"]').selectOption('');

      // A status word the server does not filter on (a final state's outcome): the list keeps its runs.
      await page.locator('.run-counts button[data-status="cancelled"]').click();
      await inPage(
        page,
        `(() => { const rows = [...document.querySelectorAll('tr[data-run]')]; return rows.length === 4 && rows.every((r) => r.querySelector('td[data-label="status"]').textContent === 'cancelled'); })()`,
      );
      expect(await page.locator('select[name="status"]').inputValue()).toBe('cancelled');
      await page.locator('select[name="status"]').selectOption('');
      await inPage(page, `document.querySelectorAll('tr[data-run]').length === 45`);
      await keepScreenshot(page, 'runs-list-1440.png');

      // Start a run from the view: the form is the lifecycle's input schema.
      await page.locator('button[name="start-run"]').click();
      const form = page.locator('form.start-run');
      await form.locator('select[name="machine"]').selectOption('expense');
      expect(await form.locator('select[name="currency"] option').allTextContents()).toEqual(['EUR', 'USD']);
      expect(await form.locator('input[name="amount"]').getAttribute('type')).toBe('number');
      expect(await form.locator('input[name="urgent"]').getAttribute('type')).toBe('checkbox');
      await form.locator('input[name="id"]').fill('expense-from-view');
      await form.locator('input[name="title"]').fill('train to Lyon');
      await form.locator('input[name="amount"]').fill('84.5');
      await form.locator('select[name="currency"]').selectOption('EUR');
      await form.locator('input[name="urgent"]').check();
      await form.locator('textarea[name="lines"]').fill('[{"what": "ticket", "amount": 84.5}]');
      await form.locator('button[name="start"]').click();
      await inPage(page, `location.hash === '#/runs/expense-from-view'`);
      const started = await api(serve.url, 'GET', '/api/runs/expense-from-view');
      expect(started.body.run).toMatchObject({
        machine: 'expense',
        state: 'draft',
        input: {
          title: 'train to Lyon',
          amount: 84.5,
          currency: 'EUR',
          urgent: true,
          lines: [{ what: 'ticket', amount: 84.5 }],
        },
      });
      const history = await api(serve.url, 'GET', '/api/runs/expense-from-view/history');
      expect(history.status).toBe(200);

      // The same id again: the API's typed refusal, shown in the form; nothing started.
      await page.goto(`${serve.url}/#/`);
      await page.locator('button[name="start-run"]').click();
      await form.locator('select[name="machine"]').selectOption('execution');
      // No schema: the input is asked for as JSON.
      expect(await form.locator('textarea[name="input"]').count()).toBe(1);
      await form.locator('input[name="id"]').fill('exec-01');
      await form.locator('button[name="start"]').click();
      const refusal = (await api(serve.url, 'POST', '/api/runs', { machine: 'execution', id: 'exec-01' })).body;
      expect(refusal.error).toBe('RunExistsError');
      await inPage(page, `document.querySelector('form.start-run .refusal') !== null`);
      expect(await form.locator('.refusal').textContent()).toBe(`${refusal.error}: ${refusal.message}`);
      expect(failures).toEqual([]);
    } finally {
      await browser.close();
      await serve.stop();
    }
  });

  it("on a memory store, the empty list points at the view's own start form, not at another process", {
    timeout: 120_000,
  }, async () => {
    const cwd = testDir('runs-list-memory');
    mkdirSync(cwd, { recursive: true });
    const serve = await startServeProcess(cwd, ['--store', 'memory']);
    const browser = await launchBrowser(join(cwd, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    try {
      await openView(page, serve.url, serve.token);
      const hint = String(
        await inPage(
          page,
          `[...document.querySelectorAll('main p.muted')].map((p) => p.textContent).find((t) => t.startsWith('No runs match') && t.includes('in memory'))`,
        ),
      );
      expect(hint).toContain('Start a run');
      expect(hint).not.toContain('beside this serve');
      await page.locator('button[name="start-run"]').click();
      await page.locator('form.start-run select[name="machine"]').selectOption('execution');
      await page.locator('form.start-run input[name="id"]').fill('kept-here');
      await page.locator('form.start-run button[name="start"]').click();
      await inPage(page, `location.hash === '#/runs/kept-here'`);
      expect((await api(serve.url, 'GET', '/api/runs/kept-here')).body.run).toMatchObject({ state: 'pending' });
      await page.goto(`${serve.url}/#/`);
      await page.locator('tr[data-run="kept-here"]').waitFor();
      expect(failures).toEqual([]);
    } finally {
      await browser.close();
      await serve.stop();
    }
  });
});
