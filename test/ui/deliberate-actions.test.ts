/**
 * The live view's actions are deliberate and its runs read right (issue 33), in Chromium against
 * `statewright demo` (a session with its stand-in agent beside executions nobody drives): an event
 * that ends the run asks first, naming it, and sends nothing when dismissed; the person's name (kept
 * in the browser) and reason reach the audit trail; a session's `agent.*` events are not buttons; a
 * failed or cancelled run is not shown as done; a run waiting for a person is flagged and filtered;
 * nothing scrolls sideways at 390 px. Screenshots at 1440x900 and 390x844 go to test-artifacts/.
 * Needs `npm run build` first (the bin and dist/ui).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { until } from '../support/until.js';
import { inPage, keepScreenshot, lineOf, openView } from '../support/live-page.js';

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/statewright.js');

const noSidewaysScroll = `document.documentElement.scrollWidth <= document.documentElement.clientWidth`;

const screenshot = keepScreenshot;

describe('deliberate actions in the live view', () => {
  it('asks before an ending event, sends the person and reason, hides agent events, and reads failures as failures', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('deliberate-actions');
    const demo = startCommand(
      process.execPath,
      [bin, 'demo', '--store', `sqlite:${join(dir, 'state.db')}`, '--create', '--port', '0', '--pace', '50'],
      { cwd: dir, reject: false },
    );
    const [, url, token] = await lineOf(demo, /The live view: (http:\/\/\S+?)\/#token=(\S+)\n/);
    const auth = { authorization: `Bearer ${token}` };
    const api = async (path: string, body?: unknown): Promise<any> => {
      const response = await fetch(
        `${url}${path}`,
        body === undefined
          ? { headers: auth }
          : { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) },
      );
      expect(response.ok, `${path}: ${response.status} ${await response.clone().text()}`).toBe(true);
      return response.json();
    };
    const history = async (id: string) =>
      (await api(`/api/runs/${id}/history`)).events as Array<{
        event: { type: string };
        actor?: string;
        reason?: string;
      }>;
    // The session's stand-in agent leads a process group of its own, which ending the demo's does not reach.
    const agent = await until(
      'session-1 to spawn its agent',
      async () =>
        (
          await fetch(`${url}/api/runs/session-1/explain`, { headers: auth }).then((r) =>
            r.ok ? (r.json() as Promise<{ agent?: { pid: number } }>) : undefined,
          )
        )?.agent?.pid,
      60_000,
      100,
    );
    endWithTest(agent);

    // GET /api/machines says which events a person sends, and which end a run from each state.
    const { machines } = await api('/api/machines');
    const session = machines.find((m: { name: string }) => m.name === 'session');
    expect(session.personEvents).toEqual(['INTERRUPT', 'APPROVAL_RESOLVED']);
    const execution = machines.find((m: { name: string }) => m.name === 'execution');
    expect(execution.endingEvents.pending).toEqual(['CANCEL', 'SKIP']);
    expect(execution.endingEvents.pending).not.toContain('ENQUEUE');

    await api('/api/runs', { machine: 'execution', id: 'cancel-me' });
    await api('/api/runs', { machine: 'execution', id: 'fails-1' });
    await api('/api/runs/fails-1/events', { event: { type: 'ENQUEUE' }, actor: 'test' });
    await api('/api/runs/fails-1/events', { event: { type: 'FAIL' }, actor: 'test' });

    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    // The demo's session reaches its approval at the stand-in agent's pace, slower on a busy machine.
    page.setDefaultTimeout(60_000);
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await openView(page, url!, token);

    // CANCEL ends the run: its button asks first, naming it, and dismissing sends nothing.
    await page.goto(`${url}/#/runs/cancel-me`);
    await page.locator('.state-now[data-state="pending"]').waitFor();
    const cancel = page.locator('form[data-event="CANCEL"]');
    await cancel.locator('button[name="send"]').click();
    await cancel.locator('.confirm', { hasText: 'CANCEL' }).waitFor();
    expect(await cancel.locator('.confirm').textContent()).toMatch(/^Send CANCEL\? It ends or cancels the run/);
    await cancel.locator('button[name="dismiss"]').click();
    await inPage(page, `document.querySelector('form[data-event="CANCEL"] .confirm') === null`);
    // By keyboard: Enter on the button opens it, with the focus on its send button; Escape closes it.
    await cancel.locator('button[name="send"]').focus();
    await page.keyboard.press('Enter');
    await cancel.locator('.confirm').waitFor();
    await inPage(page, `document.activeElement?.closest('form')?.dataset.event === 'CANCEL'`);
    await page.keyboard.press('Escape');
    await inPage(page, `document.querySelector('form[data-event="CANCEL"] .confirm') === null`);
    expect(await history('cancel-me')).toEqual([]);
    expect((await api('/api/runs/cancel-me')).run.state).toBe('pending');

    // An ordinary event goes on one click, as the person the view names, with their reason.
    await page.locator('input[name="actor"]').fill('Ada Lovelace');
    await page.locator('input[name="reason"]').fill('queue it for the night');
    await page.locator('form[data-event="ENQUEUE"] button[name="send"]').click();
    await page.locator('.state-now[data-state="queued"]').waitFor();
    // The reason was for that event; the name stays.
    await inPage(page, `document.querySelector('input[name="reason"]')?.value === ''`);
    await page.locator('input[name="reason"]').fill('duplicate build');
    await cancel.locator('button[name="send"]').click();
    await cancel.locator('button[name="send"]', { hasText: 'send CANCEL' }).click();
    await page.locator('.state-now[data-state="cancelled"]').waitFor();
    expect((await history('cancel-me')).map(({ event, actor, reason }) => [event.type, actor, reason])).toEqual([
      ['ENQUEUE', 'Ada Lovelace', 'queue it for the night'],
      ['CANCEL', 'Ada Lovelace', 'duplicate build'],
    ]);
    await page.locator('table.audit td', { hasText: 'duplicate build' }).waitFor();
    // Cancelled is not done: neither the word nor the green.
    const status = page.locator('.summary .status');
    expect(await status.textContent()).toBe('cancelled');
    expect(await status.getAttribute('class')).toMatch(/\bbad\b/);
    expect(await status.getAttribute('class')).not.toMatch(/\b(done|good)\b/);

    // The name is kept in the browser: another run's page sends as Ada too.
    await page.goto(`${url}/#/runs/fails-1`);
    await page.locator('.state-now[data-state="failed"]').waitFor();
    expect(await page.locator('.summary .status').textContent()).toBe('failed');
    await api('/api/runs', { machine: 'execution', id: 'named-1' });
    await page.goto(`${url}/#/runs/named-1`);
    await page.locator('.state-now[data-state="pending"]').waitFor();
    expect(await page.locator('input[name="actor"]').inputValue()).toBe('Ada Lovelace');
    await page.locator('form[data-event="ENQUEUE"] button[name="send"]').click();
    await page.locator('.state-now[data-state="queued"]').waitFor();
    expect((await history('named-1')).map(({ actor, reason }) => [actor, reason])).toEqual([
      ['Ada Lovelace', undefined],
    ]);

    // The session's agent events are its agent's to send: INTERRUPT is a button, agent.* are not.
    await page.goto(`${url}/#/runs/session-1`);
    await page.locator('form[data-event="INTERRUPT"]').waitFor();
    expect(await page.locator('form[data-event^="agent."]').count()).toBe(0);
    expect(await page.locator('form[data-event="SESSION_ORPHANED"]').count()).toBe(0);
    expect(await page.locator('.actions .internal').textContent()).toContain('agent.');
    await page.locator('[data-pending] button[name="approve"]').waitFor();
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshot(page, 'actions-run-1440.png');
    await page.setViewportSize({ width: 390, height: 844 });
    await inPage(page, noSidewaysScroll);
    await screenshot(page, 'actions-run-390.png');

    // The runs list: a failed run reads as failed, the waiting session is flagged and filtered.
    await page.goto(`${url}/#/`);
    await page.locator('tr[data-run="fails-1"]').waitFor();
    const failed = page.locator('tr[data-run="fails-1"] td.status');
    expect(await failed.textContent()).toBe('failed');
    expect(await failed.getAttribute('class')).not.toMatch(/\b(done|good)\b/);
    await page.locator('tr[data-run="session-1"] .badge.you', { hasText: 'waits for you' }).waitFor();
    await page.locator('tr[data-run="cancel-me"] td.age[title]').waitFor();
    expect(await page.locator('tr[data-run="cancel-me"] td.age').textContent()).toMatch(/ ago$|^just now$/);
    await inPage(page, noSidewaysScroll);
    await screenshot(page, 'actions-runs-390.png');
    await page.locator('input[name="waiting"]').check();
    await inPage(
      page,
      `(() => { const rows = [...document.querySelectorAll('tr[data-run]')]; return rows.length > 0 && rows.every((row) => row.querySelector('.badge.you')); })()`,
    );
    await page.locator('tr[data-run="session-1"]').waitFor();
    await page.locator('input[name="waiting"]').uncheck();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.locator('tr[data-run="fails-1"]').waitFor();
    await screenshot(page, 'actions-runs-1440.png');
    // Dark mode follows the system: the page's background turns dark.
    await page.emulateMedia({ colorScheme: 'dark' });
    await inPage(page, `getComputedStyle(document.body).backgroundColor === 'rgb(13, 17, 23)'`);
    await screenshot(page, 'actions-runs-1440-dark.png');
    expect(failures).toEqual([]);
  });
});
