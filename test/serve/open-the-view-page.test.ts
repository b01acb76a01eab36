/**
 * A browser sent to an API address without its credential (a link kept from before a restart, an
 * address typed) gets a page saying how to open the live view (`npx statewright open` prints its
 * URL), not the raw JSON of a 401; a program's call to the same address keeps the JSON error. On
 * the API app in this process over a memory store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { apiApp } from '../../src/serve/api-app.js';
import { StepStreams } from '../../src/serve/step-stream.js';
import { memoryStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

const TOKEN = 'open-the-view-test-token-0123456789';
/** What Chromium sends when it navigates to an address. */
const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function app() {
  const runtime: Runtime = await createRuntime({ store: memoryStore(), machines: lifecycles });
  cleanups.push(() => runtime.close());
  const api = apiApp({
    runtime,
    start: (machine, start) => runtime.start(machine, start),
    steps: new StepStreams(runtime),
    guard: { boundHost: '127.0.0.1' },
    uiDir: testDir('open-the-view'),
    token: TOKEN,
  });
  return async (method: string, path: string, headers: Record<string, string>) => {
    const response = await api.request(`http://127.0.0.1:4680${path}`, {
      method,
      headers: { host: '127.0.0.1:4680', ...headers },
    });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
}

describe('a stale or missing token', () => {
  it('shows a browser how to open the view, and keeps the JSON error for programs', async () => {
    const call = await app();
    for (const headers of <Array<Record<string, string>>>[
      { accept: NAVIGATION },
      { accept: NAVIGATION, authorization: 'View a-credential-of-a-serve-long-gone' },
      { accept: NAVIGATION, authorization: 'Bearer a-token-of-a-serve-long-gone' },
    ]) {
      const page = await call('GET', '/api/runs/job-1', headers);
      expect([page.status, page.type], JSON.stringify(headers)).toEqual([401, expect.stringMatching(/^text\/html/)]);
      expect(page.text).toContain('Open the live view through its link');
      expect(page.text).toContain('<code>npx statewright open</code>');
    }
    // Programs: fetch's default, curl's, the view's own calls, and a POST whatever it accepts.
    for (const [method, headers] of [
      ['GET', {}],
      ['GET', { accept: '*/*' }],
      ['GET', { accept: 'application/json' }],
      ['GET', { accept: 'application/json', authorization: 'View a-credential-of-a-serve-long-gone' }],
      ['POST', { accept: NAVIGATION, 'content-type': 'application/json' }],
    ] as const) {
      const refused = await call(method, '/api/runs', headers);
      expect([refused.status, refused.type], `${method} ${JSON.stringify(headers)}`).toEqual([
        401,
        expect.stringMatching(/^application\/json/),
      ]);
      expect(JSON.parse(refused.text)).toMatchObject({ kind: 'unauthorized' });
    }
    // A navigation with the token is answered as before: the API's JSON.
    const granted = await call('GET', '/api/runs', { accept: NAVIGATION, authorization: `Bearer ${TOKEN}` });
    expect([granted.status, JSON.parse(granted.text)]).toEqual([200, { runs: [], next: null }]);
  });
});
