/**
 * The live view in a real browser (Chromium from @sparticuz/chromium, driven by playwright-core), against the demo
 * as `npm start` runs it: `statewright demo` serving on a temp store, as a child process. Needs
 * `npm run build` first (the bin and dist/ui). Screenshots are kept in test-artifacts/ (git-ignored).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { endWithTest, startCommand } from '../support/child-processes.js';
import { until } from '../support/until.js';
import { pngPixels } from '../support/png-pixels.js';
import { cspViolations, inPage, keepScreenshot, lineOf, openView } from '../support/live-page.js';

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/statewright.js');

/** The state the diagram highlights as current, once it is `state`. */
const highlighted = (page: Page, state: string) =>
  inPage(page, `document.querySelector('.diagram g.node.current title')?.textContent === ${JSON.stringify(state)}`);

const screenshot = async (page: Page, name: string) => pngPixels(await keepScreenshot(page, name));

describe('the live view', () => {
  it('shows the demo runs on their statecharts, moves with events from the API and from its buttons and forms, and approves a session', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('live-view');
    const demo = startCommand(
      process.execPath,
      [bin, 'demo', '--store', `sqlite:${join(dir, 'state.db')}`, '--create', '--port', '0', '--pace', '50'],
      { cwd: dir, reject: false },
    );
    // The demo, like serve, makes a token and prints the view's URL with it.
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
    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    // The view works under its Content-Security-Policy: nothing it does is refused.
    const violations = cspViolations(page);
    page.on(
      'requestfailed',
      (request) =>
        !request.url().endsWith('/api/steps') && failures.push(`${request.url()}: ${request.failure()?.errorText}`),
    );

    // The runs page lists the demo's runs by their readable ids, with their verdicts.
    // Opened once through the printed URL: the page trades the token for its credential, which its
    // calls carry from then on, and the token leaves the address bar.
    await openView(page, url!, token);
    await page.locator('tr[data-run="build-1"]').waitFor();
    await page.locator('tr[data-run="session-1"]').waitFor();
    expect(page.url()).not.toContain(token);
    // A note (its verdict) on each active run; a finished run's status says it all.
    for (const row of await page.locator('tr[data-run]').all()) {
      const note = await row.locator('td.verdict').textContent();
      const status = await row.locator('td.status').textContent();
      expect(note === '', `${await row.getAttribute('data-run')}: ${status}, '${note}'`).toBe(status !== 'active');
    }
    expect(await page.locator('tr[data-run="session-1"] td.verdict').textContent()).not.toBe('');
    await page.locator('input[name="search"]').fill('deploy');
    await inPage(
      page,
      `[...document.querySelectorAll('tr[data-run]')].every((row) => row.getAttribute('data-run').startsWith('deploy'))`,
    );

    // A run nobody drives: the highlight follows an event sent through the API.
    await api('/api/runs', { machine: 'execution', id: 'watched-1' });
    await page.goto(`${url}/#/runs/watched-1`);
    await highlighted(page, 'pending');
    await api('/api/runs/watched-1/events', { event: { type: 'ENQUEUE' }, actor: 'test' });
    await highlighted(page, 'queued');
    await inPage(
      page,
      `[...document.querySelectorAll('.diagram g.edge.taken title')].some((t) => t.textContent === 'pending->queued')`,
    );

    // Its START button sends START: the new state is highlighted, and the audit trail says who sent
    // it, and by which credential (the view's own, set by serve: the token's holder sent ENQUEUE).
    await page.locator('form[data-event="START"] button[name="send"]').click();
    await highlighted(page, 'running');
    const { events } = await api('/api/runs/watched-1/history');
    expect(
      events.map((e: { event: { type: string }; actor?: string; credential?: string }) => [
        e.event.type,
        e.actor,
        e.credential,
      ]),
    ).toEqual([
      ['ENQUEUE', 'test', 'user-token'],
      ['START', 'ui', 'view'],
    ]);
    await page.locator('table.audit td', { hasText: 'START' }).waitFor();
    const runPage = await screenshot(page, 'run-page.png');

    // The session waits for a person: its tool call is shown with approve and deny; approving moves it on.
    await page.goto(`${url}/#/runs/session-1`);
    await page.locator('[data-pending] button[name="approve"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-pending]').textContent()).toContain('npm test');
    await page.locator('[data-pending] button[name="approve"]').click();
    await inPage(page, `document.querySelector('.state-now')?.textContent !== 'waiting_input'`);
    expect(
      (await api('/api/runs/session-1/history')).events.some(
        (e: { event: { type: string; decision?: string } }) =>
          e.event.type === 'APPROVAL_RESOLVED' && e.event.decision === 'approved',
      ),
    ).toBe(true);

    // An event with fields gets a form from its schema; a refusal shows the typed error's message.
    await page.goto(`${url}/#/runs/task`);
    await highlighted(page, 'Complete');
    const createTask = page.locator('form[data-event="create_task"]');
    await createTask.locator('button[name="send"]').click();
    await createTask.locator('input[name="task"]').fill('Write the docs');
    await createTask.locator('input[name="agent"]').fill('executor:me:1');
    await createTask.locator('button[name="send"]').click();
    expect(await createTask.locator('.refusal').textContent()).toMatch(
      /^RoleError: .*only 'supervisor' may create_task/,
    );
    await createTask.locator('input[name="agent"]').fill('supervisor:me:1');
    await createTask.locator('button[name="send"]').click();
    await highlighted(page, 'Active.Working.Executing');
    expect((await api('/api/runs/task')).run.context).toMatchObject({ task: 'Write the docs' });

    // Moving in the app to a run that does not exist shows why, not the last run's page under the new address.
    await page.goto(`${url}/#/runs/no-such-run`);
    await page.locator('p.error', { hasText: "Unknown run 'no-such-run'" }).waitFor();
    expect(await page.locator('.state-now').count()).toBe(0);

    // The lifecycle page counts the runs resting in each state on its statechart.
    await page.goto(`${url}/#/lifecycles/execution`);
    await page.locator('.diagram g.node[data-state="running"] g.count').waitFor();
    const lifecyclePage = await screenshot(page, 'lifecycle-page.png');

    // Neither is blank: a blank page is one colour, these have the diagram's ink and highlights.
    await page.goto('about:blank');
    const blank = pngPixels(await page.screenshot());
    expect(blank.colours).toBe(1);
    for (const shot of [runPage, lifecyclePage]) {
      expect(shot.colours).toBeGreaterThan(20);
      expect(shot.inkShare).toBeGreaterThan(0.02);
    }
    expect(failures).toEqual([]);
    expect(violations).toEqual([]);

    // Ctrl-C stops the demo cleanly.
    demo.kill('SIGINT');
    const result = await demo;
    expect(result.stdout).toContain('stopping');
    expect(result.exitCode).toBe(0);
  });
});
