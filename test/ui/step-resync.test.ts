/**
 * The live view after a reconnect, in Chromium: a run page stays open while serve is stopped, the
 * run moves on in the store meanwhile (a CLI `send` with no serve up), and serve starts again on the
 * same port and store. The page's step stream reconnects by itself and the page shows the store's
 * state with no reload by hand. While connected, a step updates the page from its payload: the run
 * is not read again. Needs `npm run build` first (the bin and dist/ui).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { inPage, openView } from '../support/live-page.js';
import { startCommand } from '../support/child-processes.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/statewright.js');
const TOKEN = 'step-resync-test-token-0123456789';

/** Resolves once the run page shows the run in `state` (the test's tsconfig has no DOM types, so the check is text). */
const shows = (page: Page, state: string) =>
  inPage(page, `document.querySelector('.state-now')?.getAttribute('data-state') === ${JSON.stringify(state)}`);

it('a run page shows the state the store holds after serve restarts with the run moved meanwhile, with no reload', async () => {
  expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
  const dir = testDir('step-resync');
  const store = `sqlite:${join(dir, 'state.db')}`;
  let server: ServeProcess | undefined = await startServeProcess(dir, ['--store', store, '--create', '--token', TOKEN]);
  try {
    const url = server.url;
    const port = new URL(url).port;
    expect((await api(url, 'POST', '/api/runs', { machine: 'execution', id: 'resync-1' })).status).toBe(201);
    expect((await api(url, 'POST', '/api/runs/resync-1/events', { event: { type: 'ENQUEUE' } })).status).toBe(200);

    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    // Every read of the run itself (not its history or explanation), by path.
    const runReads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/runs/resync-1') runReads.push(request.url());
    });
    await openView(page, url, TOKEN);
    await page.goto(`${url}/#/runs/resync-1`);
    await shows(page, 'queued');
    // The stream is open (the header's live dot) before the step is sent, so the page hears it.
    await page.locator('.live.on').waitFor();
    const readsBefore = runReads.length;

    // A step while connected: the page moves from the step's payload, without reading the run again.
    expect((await api(url, 'POST', '/api/runs/resync-1/events', { event: { type: 'START' } })).status).toBe(200);
    await shows(page, 'running');
    expect(runReads.length).toBe(readsBefore);

    // Serve stops; the run moves on in the store meanwhile, through the CLI.
    expect(await server.stop()).toBe(0);
    server = undefined;
    const sent = await startCommand(
      process.execPath,
      [bin, 'send', 'resync-1', '{"type":"RECOVER"}', '--store', store],
      {
        cwd: dir,
        reject: false,
      },
    );
    expect(sent.exitCode, `${sent.stdout}\n${sent.stderr}`).toBe(0);
    await page.locator('.live.off').waitFor();
    // The page still shows what it last heard.
    expect(await page.locator('.state-now').getAttribute('data-state')).toBe('running');

    // Serve again, on the same port and store: the page reconnects and shows the store's state.
    server = await startServeProcess(dir, ['--store', store, '--token', TOKEN, '--port', port]);
    expect(server.url).toBe(url);
    await shows(page, 'recovering');
    // And hears the steps after that as before.
    expect((await api(url, 'POST', '/api/runs/resync-1/events', { event: { type: 'START' } })).status).toBe(200);
    await shows(page, 'running');
    expect(failures).toEqual([]);
  } finally {
    await server?.stop();
  }
});
