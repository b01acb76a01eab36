/**
 * `statewright serve` is a door into the user's machine: it starts processes from what it is sent.
 * These tests knock on it as an attacker would, over real HTTP against the built CLI: a web page of
 * another origin, a DNS-rebound name, another local user without the token, malformed paths; and
 * as its user would: the printed URL, the view's credential it trades the token for, the CLI that
 * finds the token by itself.
 */
import { request } from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testDir } from '../stores/temp-dir.js';
import { startCommand } from '../support/child-processes.js';
import { api, startServeProcess, type ServeProcess } from '../support/serve-process.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

/** What a start would run if it got through: a file appears. Nothing may ever create it. */
const hostileStart = (marker: string) => ({
  machine: 'codon',
  id: 'pwned',
  input: { agent: { command: ['sh', '-c', `touch ${marker}`] } },
});

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: any;
}

/** One request with exactly these headers (fetch will not send a `Host` of our choosing). */
function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, method, path, headers, setHost: !('host' in headers) }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // an HTML page or nothing: kept as text
        }
        resolve({ status: response.statusCode!, headers: response.headers, body: parsed });
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

async function startServe(args: readonly string[], env: Record<string, string> = {}) {
  const dir = testDir('serve-security');
  const server = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create', ...args], env);
  return { dir, server };
}

/** The ids of the runs the store holds, asked with the token. */
const runIds = async (server: ServeProcess) =>
  ((await api(server.url, 'GET', '/api/runs')).body.runs as Array<{ runId: string }>).map((r) => r.runId);

describe('statewright serve: nobody but its user drives it', () => {
  it('makes a random token, keeps it 0600 for the CLI, prints the URL with it, and refuses requests without it', async () => {
    const { dir, server } = await startServe([]);
    const { url, token } = server;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(server.stdout()).toContain(`The live view: ${url}/#token=${token}\n`);

    // The server file beside the store holds it, readable by this user alone.
    const [name] = readdirSync(join(dir, 'state.db.serve'));
    const file = join(dir, 'state.db.serve', name!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url, token });

    const none = { authorization: '' };
    expect(await api(url, 'GET', '/api/runs', undefined, none)).toMatchObject({
      status: 401,
      body: { error: 'UnauthorizedError', message: expect.stringMatching(/needs its token/) },
    });
    expect(
      await api(url, 'GET', '/api/runs', undefined, { authorization: 'Bearer wrong-but-long-enough' }),
    ).toMatchObject({ status: 401, body: { message: expect.stringMatching(/^Wrong token/) } });
    expect(await api(url, 'POST', '/api/runs', { machine: 'execution', id: 'sneaky' }, none)).toMatchObject({
      status: 401,
    });
    // No token in a URL is taken by the API, the step stream included.
    expect(
      await api(url, 'POST', `/api/runs?token=${token}`, { machine: 'execution', id: 'sneaky' }, none),
    ).toMatchObject({ status: 401 });
    expect(await api(url, 'GET', `/api/runs?token=${token}`, undefined, none)).toMatchObject({ status: 401 });
    expect((await fetch(`${url}/api/steps?token=${token}`)).status).toBe(401);
    expect((await fetch(`${url}/api/steps`)).status).toBe(401);
    expect(await runIds(server)).toEqual([]);

    // The page and its files hold nothing of the runs: answered to anyone, with no cookie ever, and
    // with the headers that keep other pages from framing it or running scripts in it.
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    const script = (await page.text()).match(/src="\.?\/?(assets\/[^"]+\.js)"/)![1]!;
    expect((await fetch(`${url}/${script}`)).status).toBe(200);
    // An old printed URL (`/?token=`) is sent on to the fragment form, no cookie; a wrong one says how to open the view.
    const old = await fetch(`${url}/?token=${token}`, { redirect: 'manual' });
    expect([old.status, old.headers.get('location'), old.headers.get('set-cookie')]).toEqual([
      303,
      `/#token=${token}`,
      null,
    ]);
    const stale = await fetch(`${url}/?token=stale-token-of-another-serve`);
    expect([stale.status, stale.headers.get('content-type'), await stale.text()]).toEqual([
      401,
      expect.stringMatching(/^text\/html/),
      expect.stringContaining('statewright open'),
    ]);

    // The view trades the token for its credential, and that for a fresh one; the credential drives the API.
    const traded = await api(url, 'POST', '/api/view-session', {});
    expect(traded).toMatchObject({ status: 201, body: { credential: expect.any(String), lifetimeMs: 1_800_000 } });
    const view = { authorization: `View ${traded.body.credential}` };
    expect(await api(url, 'POST', '/api/runs', { machine: 'execution', id: 'by-view' }, view)).toMatchObject({
      status: 201,
    });
    const renewed = await api(url, 'POST', '/api/view-session', {}, view);
    expect(renewed).toMatchObject({ status: 201 });
    expect(renewed.body.credential).not.toBe(traded.body.credential);
    const stream = await fetch(`${url}/api/steps`, { headers: view });
    expect(stream.status).toBe(200);
    await stream.body!.cancel();
    // A credential altered by one character, or made up, is refused, and so is the token sent as one.
    const forged = traded.body.credential.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
    for (const credential of [forged, token, 'zzzzzzzz.nonce.mac'])
      expect(await api(url, 'GET', '/api/runs', undefined, { authorization: `View ${credential}` })).toMatchObject({
        status: 401,
        body: { error: 'ViewCredentialError' },
      });

    // The user's own CLI finds the server and its token with nothing given.
    const started = await startCommand(
      process.execPath,
      [bin, 'start', 'codon', '--id', 'c-1', '--input', '{}', '--store', `sqlite:${join(dir, 'state.db')}`],
      { cwd: dir, reject: false, env: { STATEWRIGHT_TOKEN: '' } },
    );
    // The server answered (a codon needs its fields): it was reached, with the token.
    expect([started.exitCode, started.stderr]).toEqual([1, expect.stringMatching(/Codon input is not valid/)]);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('refuses pages of other origins, rebound names, bodies that are not JSON and malformed paths, and changes nothing', async () => {
    const { dir, server } = await startServe([
      '--allowed-host',
      'build-box.local',
      '--cors-origin',
      'http://localhost:5173',
    ]);
    const { url, token } = server;
    const port = new URL(url).port;
    const marker = join(dir, 'pwned');
    const body = JSON.stringify(hostileStart(marker));
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };

    // What a page can send with no preflight: a text/plain fetch (no-cors), a form post.
    expect(
      await raw(url, 'POST', '/api/runs', { ...auth, 'content-type': 'text/plain;charset=UTF-8' }, body),
    ).toMatchObject({ status: 415, body: { error: 'UnsupportedMediaTypeError' } });
    expect(
      await raw(url, 'POST', '/api/runs', { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body),
    ).toMatchObject({ status: 415 });
    expect(
      await raw(url, 'POST', '/api/runs', { ...auth, 'content-type': 'multipart/form-data; boundary=x' }, body),
    ).toMatchObject({ status: 415 });
    expect(await raw(url, 'POST', '/api/runs', auth, body)).toMatchObject({
      status: 415,
      body: { message: expect.stringMatching(/got none/) },
    });
    // A page of another origin, even with the right token and type.
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${Number(port) + 1}`]) {
      expect(await raw(url, 'POST', '/api/runs', { ...json, origin }, body)).toMatchObject({
        status: 403,
        body: { error: 'ForeignOriginError', message: expect.stringContaining('--cors-origin') },
      });
    }
    // A subresource of another site carries no Origin, but its browser says where it came from.
    expect(
      await raw(url, 'GET', '/api/runs', { ...auth, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }),
    ).toMatchObject({ status: 403 });
    // A name rebound to 127.0.0.1.
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example:${port}`]) {
      expect(await raw(url, 'POST', '/api/runs', { ...json, host }, body)).toMatchObject({
        status: 421,
        body: { error: 'HostNotAllowedError' },
      });
    }
    expect(await raw(url, 'GET', '/api/runs', { ...auth, host: `evil.example:${port}` })).toMatchObject({
      status: 421,
    });
    expect(existsSync(marker)).toBe(false);
    expect(await runIds(server)).toEqual([]);

    // What the user allowed: its own origin, localhost, a name given with --allowed-host, a CORS origin.
    expect(
      await raw(
        url,
        'POST',
        '/api/runs',
        { ...json, origin: url },
        JSON.stringify({ machine: 'execution', id: 'own-origin' }),
      ),
    ).toMatchObject({ status: 201 });
    expect(await raw(url, 'GET', '/api/runs/own-origin', { ...auth, host: `localhost:${port}` })).toMatchObject({
      status: 200,
    });
    expect(await raw(url, 'GET', '/api/runs/own-origin', { ...auth, host: `build-box.local:${port}` })).toMatchObject({
      status: 200,
    });
    const preflight = await raw(url, 'OPTIONS', '/api/runs', {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    });
    expect(preflight).toMatchObject({
      status: 204,
      headers: {
        'access-control-allow-origin': 'http://localhost:5173',
        'access-control-allow-headers': 'authorization, content-type',
      },
    });
    const cors = await raw(
      url,
      'POST',
      '/api/runs',
      { ...json, origin: 'http://localhost:5173' },
      JSON.stringify({ machine: 'execution', id: 'from-cors' }),
    );
    expect(cors).toMatchObject({ status: 201, headers: { 'access-control-allow-origin': 'http://localhost:5173' } });
    expect(
      await raw(url, 'OPTIONS', '/api/runs', {
        origin: 'http://evil.example',
        'access-control-request-method': 'POST',
      }),
    ).toMatchObject({ status: 403 });

    // Run ids are names: no lone surrogate, no path word, nothing invisible (422, nothing stored).
    for (const id of ['\ud800', 'lone\udc00', '.', '..', 'a\u202eb', 'nul\u0000']) {
      expect(await raw(url, 'POST', '/api/runs', json, JSON.stringify({ machine: 'execution', id }))).toMatchObject({
        status: 422,
        body: { error: 'InvalidArgumentError', kind: 'invalid' },
      });
    }
    // Malformed percent-encoding (an encoded lone surrogate too): a typed 400, never a 500.
    for (const path of ['/%ff.js', '/api/runs/%ff', '/api/runs/%E0%A4%A/history', '/%', '/api/runs/%ED%A0%80']) {
      expect(await raw(url, 'GET', path, auth)).toMatchObject({ status: 400, body: { error: 'MalformedUrlError' } });
    }
    expect(existsSync(marker)).toBe(false);
    expect((await runIds(server)).sort()).toEqual(['from-cors', 'own-origin']);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('refuses weak tokens; --no-token serves loopback only, with a warning, and keeps the Origin and Host checks', async () => {
    const dir = testDir('serve-security');
    const store = `sqlite:${join(dir, 'state.db')}`;
    const serve = (args: string[], env: Record<string, string> = {}) =>
      startCommand(process.execPath, [bin, 'serve', '--port', '0', '--store', store, '--create', ...args], {
        cwd: dir,
        reject: false,
        env,
      });
    const weak =
      /^statewright: Refusing a server token of \d+ characters: a token must be at least 16 visible ASCII characters/;
    for (const [args, env] of [
      [['--token', 'short']],
      [[], { STATEWRIGHT_TOKEN: ' ' }],
      [[], { STATEWRIGHT_TOKEN: ' '.repeat(20) }],
      [['--token', 'sixteen chars ok']],
    ] as Array<[string[], Record<string, string>?]>) {
      const refused = await serve(args, env);
      expect([refused.exitCode, refused.stderr]).toEqual([1, expect.stringMatching(weak)]);
    }
    const wide = await serve(['--no-token', '--host', '0.0.0.0']);
    expect([wide.exitCode, wide.stderr]).toEqual([
      1,
      expect.stringMatching(/^statewright: Refusing to serve on 0\.0\.0\.0 without a token: .*Leave out --no-token/),
    ]);

    const server = await startServeProcess(dir, ['--no-token', '--store', store, '--create']);
    expect(server.token).toBeUndefined();
    await server.printed(/^The live view: http:\/\/127\.0\.0\.1:\d+\/$/m);
    expect(server.stdout()).toMatch(/warning: serving without a token \(--no-token\)/);
    expect(
      await raw(
        server.url,
        'POST',
        '/api/runs',
        { 'content-type': 'application/json' },
        JSON.stringify({ machine: 'execution', id: 'open' }),
      ),
    ).toMatchObject({ status: 201 });
    expect(
      await raw(
        server.url,
        'POST',
        '/api/runs',
        { 'content-type': 'application/json', origin: 'http://evil.example' },
        '{}',
      ),
    ).toMatchObject({ status: 403 });
    expect(await raw(server.url, 'GET', '/api/runs', { host: 'evil.example' })).toMatchObject({ status: 421 });
    expect(await raw(server.url, 'POST', '/api/runs', { 'content-type': 'text/plain' }, '{}')).toMatchObject({
      status: 415,
    });
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('bound to every interface, answers to IP addresses (no rebinding reaches those) and says where it listens', async () => {
    const { server } = await startServe(['--host', '0.0.0.0', '--token', 'a-token-given-by-the-user']);
    expect(server.token).toBe('a-token-given-by-the-user');
    expect(server.stdout()).toMatch(/listening on every interface \(0\.0\.0\.0\), so from other machines too/);
    const port = new URL(server.url).port;
    const auth = { authorization: 'Bearer a-token-given-by-the-user' };
    expect(await raw(server.url, 'GET', '/api/runs', { ...auth, host: `10.1.2.3:${port}` })).toMatchObject({
      status: 200,
    });
    expect(await raw(server.url, 'GET', '/api/runs', { ...auth, host: `[fe80::1]:${port}` })).toMatchObject({
      status: 200,
    });
    expect(await raw(server.url, 'GET', '/api/runs', { ...auth, host: `rebound.example:${port}` })).toMatchObject({
      status: 421,
    });
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
