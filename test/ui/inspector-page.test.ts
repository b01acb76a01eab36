/**
 * The inspector bridge in a real browser (Chromium from @sparticuz/chromium): its page, opened
 * through the URL printed with the token in the fragment, receives the runs' inspection events
 * under its strict CSP; opened without the token it is refused and says how to open it; a page of
 * another origin that opens a websocket to the bridge is refused and receives nothing.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { startInspector } from '../../src/inspect/inspector.js';
import { createRuntime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';
import { launchBrowser } from '../support/browser.js';
import { inPage } from '../support/live-page.js';

/** Serves `html` at `/` on a port of its own: another origin than the bridge's. */
async function pageServer(html: string): Promise<string> {
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('the inspector bridge in Chromium', () => {
  it('feeds its own page, opened with the token; refuses it without, and a page of another origin gets nothing', async () => {
    const dir = testDir('inspector-page');
    const inspector = await startInspector({ port: 0 });
    onTestFinished(() => inspector.stop());
    const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles, inspect: inspector.inspect });
    onTestFinished(() => runtime.close());
    await runtime.start('execution', { id: 'secret-job', input: { note: 'a secret' } });
    await runtime.dispatch('secret-job', { type: 'ENQUEUE' });

    const browser = await launchBrowser(join(dir, 'chromium-profile'));
    const violations: string[] = [];
    const page = await browser.newPage();
    page.on('console', (message) => /Content Security Policy/.test(message.text()) && violations.push(message.text()));

    // The printed URL: the kept events, then each new one.
    await page.goto(inspector.url);
    // Polled with page.evaluate (inPage): waitForFunction evals in the page, which its CSP forbids.
    await inPage(page, `/\\(\\d+ inspection events received\\)/.test(document.getElementById('count').textContent)`);
    const before = Number((await page.textContent('#count'))!.match(/\d+/)![0]);
    await runtime.dispatch('secret-job', { type: 'START' });
    await inPage(page, `Number(document.getElementById('count').textContent.match(/\\d+/)[0]) > ${before}`, 30_000);
    expect(await page.textContent('#status')).toContain('a page of stately.ai, on the internet');
    // Its script and websocket run under its CSP; only the framed stately.ai page may be blocked (offline).
    expect(violations.filter((text) => !text.includes('stately.ai'))).toEqual([]);

    // Without the token (the URL without its fragment): refused, and told how to open it.
    const bare = await browser.newPage();
    await bare.goto(inspector.url.replace(/#.*$/, ''));
    await inPage(bare, `document.getElementById('status').textContent.includes('refused')`);
    expect(await bare.textContent('#count')).toBe('');

    // Another origin's page opens the bridge's websocket and guesses a token: refused before the upgrade.
    const attacker = await browser.newPage();
    const port = new URL(inspector.url).port;
    await attacker.goto(
      await pageServer(`<!doctype html><meta charset="utf-8"><title>loading</title><script>
let received = 0;
const socket = new WebSocket('ws://127.0.0.1:${port}/');
socket.onopen = () => socket.send(JSON.stringify({ type: 'statewright.token', token: 'guess-guess-guess-guess' }));
socket.onmessage = () => received++;
socket.onclose = (e) => (document.title = 'closed ' + e.code + ' ' + received);
</script>`),
    );
    await attacker.waitForFunction(`document.title.startsWith('closed')`);
    expect(await attacker.title()).toBe('closed 1006 0');
  });
});
