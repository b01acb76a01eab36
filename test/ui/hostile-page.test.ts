/**
 * A hostile web page in a real browser (Chromium from @sparticuz/chromium, driven by playwright-core)
 * against a running `statewright serve`: what any page the user visits could try. A page of another
 * origin sends the "simple" requests a browser lets out with no preflight (a `no-cors` text/plain
 * fetch, a text/plain form post that spells JSON), and a page whose name is rebound to 127.0.0.1
 * (Chromium's --host-resolver-rules plays the rebinding DNS server) calls the API as its own origin,
 * the token included. Nothing starts, nothing is stored; the user's view, opened through the URL
 * serve printed, shows the runs.
 */
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { api, startServeProcess } from '../support/serve-process.js';

/** Serves `html` at `/` on a port of its own: another origin than serve's. */
async function pageServer(html: string): Promise<string> {
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/**
 * The attack: a no-cors fetch, then a form whose one field's name and value together make the JSON
 * body, posted into a frame. `document.title` says when both have been answered.
 */
function attackPage(target: string, start: object): string {
  const json = JSON.stringify(start);
  // text/plain forms send `name=value`: the `=` lands inside a string the JSON ends with.
  const name = `${json.slice(0, -1)},"pad":"`;
  return `<!doctype html><meta charset="utf-8"><title>loading</title>
<iframe name="sink"></iframe>
<form id="f" method="post" action="${target}/api/runs" enctype="text/plain" target="sink"><input name='${name}' value='"}'></form>
<script>
  fetch(${JSON.stringify(`${target}/api/runs`)}, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: ${JSON.stringify(json)} })
    .catch(() => {})
    .then(() => {
      document.querySelector('iframe').addEventListener('load', () => (document.title = 'sent'));
      document.getElementById('f').submit();
    });
</script>`;
}

describe('a hostile web page against statewright serve', () => {
  it('starts nothing and reads nothing, by a cross-origin post or by DNS rebinding; the printed URL opens the view', async () => {
    const dir = testDir('hostile-page');
    const server = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
    const { url, token } = server;
    const port = new URL(url).port;
    const marker = join(dir, 'pwned');
    const start = { machine: 'codon', id: 'pwned', input: { agent: { command: ['sh', '-c', `touch ${marker}`] } } };

    const browser = await launchBrowser(join(dir, 'chromium-profile'), [
      '--host-resolver-rules=MAP rebound.test 127.0.0.1',
    ]);
    const page = await browser.newPage();
    const answers: Array<{ url: string; status: number; error?: string }> = [];
    const record = async (response: Response) => {
      if (new URL(response.url()).port !== port) return;
      const body = await response.json().catch(() => undefined);
      answers.push({ url: response.url(), status: response.status(), ...(body?.error && { error: body.error }) });
    };
    page.on('response', (response) => void record(response));

    // Another origin: each request reached serve and was refused for its origin, before any token
    // (the no-cors answer is opaque to the page, and to the browser's own tools: its status shows;
    // the form's answer, posted into a frame, is not even shown there: no answer of serve may be framed).
    const frameRefused = new Promise<string>((resolve) =>
      page.on('console', (message) => /frame-ancestors 'none'/.test(message.text()) && resolve(message.text())),
    );
    await page.goto(await pageServer(attackPage(url, start)));
    await page.waitForFunction(`document.title === 'sent'`, undefined, { timeout: 60_000 });
    await expect.poll(() => answers.length, { timeout: 60_000 }).toBe(2);
    expect(answers).toEqual([
      { url: `${url}/api/runs`, status: 403 },
      { url: `${url}/api/runs`, status: 403 },
    ]);
    expect(await frameRefused).toContain(`${url}/`);

    // Rebinding: the page's origin is rebound.test:<serve's port>, so to the browser the API is its
    // own. Even knowing the token, it gets nothing: serve answers no host it is not.
    const rebound = `http://rebound.test:${port}`;
    const opened = await page.goto(`${rebound}/#token=${token}`);
    expect(opened?.status()).toBe(421);
    const tried = await page.evaluate(
      async ([body, token]) => {
        const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
        const started = await fetch('/api/runs', { method: 'POST', headers, body });
        const listed = await fetch('/api/runs', { headers });
        return [started.status, listed.status, ((await listed.json()) as { error?: string }).error];
      },
      [JSON.stringify(start), token!] as const,
    );
    expect(tried).toEqual([421, 421, 'HostNotAllowedError']);
    expect(existsSync(marker)).toBe(false);
    expect((await api(url, 'GET', '/api/runs')).body.runs).toEqual([]);

    // The user's own view, through the URL serve printed, renders the runs.
    expect(await api(url, 'POST', '/api/runs', { machine: 'execution', id: 'build-1' })).toMatchObject({ status: 201 });
    const view = await browser.newPage();
    await view.goto(server.stdout().match(/^The live view: (\S+)$/m)![1]!);
    await view.locator('tr[data-run="build-1"]').waitFor({ timeout: 60_000 });
    expect(view.url()).not.toContain(token!);
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
