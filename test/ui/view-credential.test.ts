/**
 * The live view's credential stays with the view, in real Chromium (issue 40, item 4). The view is
 * opened through `statewright open --browser` (a stand-in `$BROWSER` that hands the file it is given
 * to this browser), as its user does; then:
 * - a server on another 127.0.0.1 port that the same browser visits receives nothing of the view's
 *   (its every request's headers are recorded: no cookie, no token, no credential);
 * - a page on another 127.0.0.1 port that frames the view, even with the token in the frame's URL,
 *   gets no view: the frame is refused (`frame-ancestors 'none'`), nothing is traded for a
 *   credential, and no button of the view is there to click;
 * - the view works under its Content-Security-Policy with no violation reported;
 * - a stale token, or a tab kept across a serve started with another token, shows how to open the
 *   view (`statewright open`), not JSON.
 * Needs `npm run build` first (the bin and dist/ui).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { startCommand } from '../support/child-processes.js';
import { cspViolations, inPage } from '../support/live-page.js';
import { api, startServeProcess } from '../support/serve-process.js';

const root = new URL('../../', import.meta.url).pathname;
const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

/** A server on a port of its own that answers `html` and records the headers of every request it gets. */
async function otherServer(html: string): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

describe("the live view's credential", () => {
  it('reaches no other port, cannot be framed, works under its CSP, and a stale token says how to open the view', async () => {
    expect(existsSync(join(root, 'dist/ui/index.html')), 'the live view is not built: run npm run build').toBe(true);
    const dir = testDir('view-credential');
    const store = `sqlite:${join(dir, 'state.db')}`;
    let serve = await startServeProcess(dir, ['--store', store, '--create']);
    const { url, token } = serve;
    const port = new URL(url).port;
    expect((await api(url, 'POST', '/api/runs', { machine: 'execution', id: 'watched-1' })).status).toBe(201);

    // `statewright open` prints the URL serve printed, read from the server file.
    const printed = await startCommand(process.execPath, [bin, 'open', '--store', store], { cwd: dir, reject: false });
    expect([printed.exitCode, printed.stdout]).toEqual([0, `${url}/#token=${token}`]);
    expect(serve.stdout()).toContain(`The live view: ${url}/#token=${token}\n`);

    // `--browser` hands the opener a file, never the URL: the opener's command line holds no token.
    const handed = join(dir, 'handed.txt');
    const opener = join(dir, 'stand-in-browser.sh');
    writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$*" > '${handed}'\n`);
    chmodSync(opener, 0o755);
    const opened = await startCommand(process.execPath, [bin, 'open', '--store', store, '--browser'], {
      cwd: dir,
      reject: false,
      env: { BROWSER: opener },
    });
    expect(opened.exitCode, opened.stderr).toBe(0);
    await expect.poll(() => existsSync(handed), { timeout: 30_000 }).toBe(true);
    const file = readFileSync(handed, 'utf8');
    expect(file).not.toContain(token!);
    expect(readFileSync(file, 'utf8')).toContain(`${url}/#token=${token}`);

    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const page = await browser.newPage();
    const violations = cspViolations(page);
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    const credentials: string[] = [];
    page.on('request', (request) => {
      const auth = request.headers().authorization;
      if (auth?.startsWith('View ')) credentials.push(auth.slice('View '.length));
    });

    // The file the opener got sends the browser on to the view: the token leaves the address bar.
    await page.goto(pathToFileURL(file).href);
    await page.locator('tr[data-run="watched-1"]').waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(`${url}/#/`);
    expect(await browser.cookies()).toEqual([]);

    // Its run page moves with a step sent meanwhile: the step stream read with fetch and the credential.
    await page.goto(`${url}/#/runs/watched-1`);
    await page.locator('.live.on').waitFor({ timeout: 60_000 });
    await inPage(page, `document.querySelector('.state-now')?.getAttribute('data-state') === 'pending'`);
    expect((await api(url, 'POST', '/api/runs/watched-1/events', { event: { type: 'ENQUEUE' } })).status).toBe(200);
    await inPage(page, `document.querySelector('.state-now')?.getAttribute('data-state') === 'queued'`);
    // A reload keeps the tab's credential: the page works with no token in its URL.
    await page.reload();
    await inPage(page, `document.querySelector('.state-now')?.getAttribute('data-state') === 'queued'`);
    expect(credentials.length).toBeGreaterThan(0);
    expect(violations).toEqual([]);

    // Another server on 127.0.0.1, visited by the same browser, in the view's tab and in another:
    // none of its requests carries a cookie, the token or the view's credential.
    const other = await otherServer('<!doctype html><title>other</title><img src="/pixel.png">');
    await page.goto(`${other.url}/`);
    await browser.newPage().then((tab) => tab.goto(`http://localhost:${new URL(other.url).port}/`));
    await expect.poll(() => other.seen.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    const everything = JSON.stringify(other.seen);
    expect(other.seen.filter((headers) => headers.cookie !== undefined)).toEqual([]);
    expect(everything).not.toContain(token!);
    for (const credential of new Set(credentials)) expect(everything).not.toContain(credential);

    // A page on another port frames the view, the token in the frame's URL: the frame is refused
    // before the view's script runs, so nothing is traded and no approve or deny can be clicked.
    const serveRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).port === port)
        serveRequests.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    const framing = await otherServer(
      `<!doctype html><title>framing</title><iframe id="view" src="${url}/#token=${token}" width="800" height="600"></iframe>`,
    );
    const framed = page.waitForResponse((response) => new URL(response.url()).port === port);
    await page.goto(`${framing.url}/`);
    const answer = await framed;
    expect(answer.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(answer.headers()['x-frame-options']).toBe('DENY');
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await expect.poll(() => frame.url(), { timeout: 30_000 }).toMatch(/^chrome-error:/);
    expect(await frame.locator('button').count()).toBe(0);
    expect(await frame.locator('tr[data-run]').count()).toBe(0);
    expect(serveRequests).toEqual(['GET /']);
    // The browser says why: the view's own policy refused the frame.
    expect(violations).toEqual([expect.stringContaining("frame-ancestors 'none'")]);

    // A stale token: the page says how to open the view, and so does the old form of the URL.
    const fresh = await browser.newPage();
    const freshViolations = cspViolations(fresh);
    await fresh.goto(`${url}/#token=stale-token-of-a-serve-long-gone`);
    await fresh.locator('h1', { hasText: 'Open the live view through its link' }).waitFor({ timeout: 60_000 });
    expect(await fresh.locator('main').textContent()).toContain('statewright open');
    const oldForm = await fresh.goto(`${url}/?token=stale-token-of-a-serve-long-gone`);
    expect(oldForm?.status()).toBe(401);
    expect(await fresh.locator('body').textContent()).toContain('statewright open');
    // No token at all: the same.
    await fresh.goto(`${url}/`);
    await fresh.locator('h1', { hasText: 'Open the live view through its link' }).waitFor({ timeout: 60_000 });

    // A tab kept open across a serve started again with another token: its credential is refused on reload.
    await page.goto(`${url}/#/runs/watched-1`);
    await page.locator('.state-now').waitFor({ timeout: 60_000 });
    expect(await serve.stop()).toBe(0);
    // The page the opener got held the token: it went with the server file.
    expect(existsSync(file)).toBe(false);
    serve = await startServeProcess(dir, ['--store', store, '--port', port]);
    expect(serve.token).not.toBe(token);
    await page.reload();
    await page.locator('h1', { hasText: 'Open the live view through its link' }).waitFor({ timeout: 60_000 });

    expect(freshViolations).toEqual([]);
    expect(failures).toEqual([]);
    expect(await serve.stop()).toBe(0);

    // With no serve running, `statewright open` says how to start one.
    const none = await startCommand(process.execPath, [bin, 'open', '--store', store], { cwd: dir, reject: false });
    expect([none.exitCode, none.stdout, none.stderr]).toEqual([
      1,
      '',
      expect.stringContaining(`No statewright serve is running for this store (${store}): start one with`),
    ]);
  });
});
