/**
 * Who may call the run objects through a real Restate ingress (caller-check.ts): every handler of
 * every statewright service Restate lists is tried without the token, with a wrong one, and from a
 * web page's origin. The handlers a client calls refuse each (401 or 403, typed, nothing written);
 * the ones only Restate calls are not public (the ingress refuses them whatever a call carries). A GET
 * (which the ingress also runs handlers on, and any page's link or image sends with no Origin) and a
 * call a browser marks as a page's are refused too, token or not.
 * With the token everything works, as the clients send it; an origin the worker allows is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import {
  restateRuntime,
  RestateOriginError,
  RestateUnauthorizedError,
  type RestateRuntime,
} from '../../src/restate/index.js';
import { UnknownRunError } from '../../src/runtime/errors.js';
import { startRestateHost, type RestateHost } from './restate-host.js';

const ALLOWED = 'http://allowed.test:5173';
let host: RestateHost;
beforeAll(async () => {
  host = await startRestateHost({ machines: lifecycles, allowedOrigins: [ALLOWED] });
  await host.runtime.start('execution', { id: 'kept', input: { secret: 'kept-secret' } });
  await host.runtime.dispatch('kept', { type: 'ENQUEUE' });
}, 120_000);
afterAll(() => host?.stop());

/** A POST to the ingress as any program (or page) could send it; a GET (what a link or an image sends) with `get`. */
async function call(path: string, body: unknown, headers: Record<string, string> = {}, get = false) {
  const response = await fetch(
    `${host.node.ingress}${path}`,
    get
      ? { headers }
      : { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) },
  );
  const text = await response.text();
  return { status: response.status, text, message: (JSON.parse(text) as { message?: string }).message };
}

/** Every handler of statewright's services, as Restate lists them, with whether the ingress may call it. */
async function handlers(): Promise<Array<{ service: string; handler: string; ingress: boolean }>> {
  const { services } = (await (await fetch(`${host.node.admin}/services`)).json()) as {
    services: Array<{ name: string; public: boolean; handlers: Array<{ name: string; public?: boolean }> }>;
  };
  return services
    .filter((service) => service.name.startsWith('statewright-'))
    .flatMap((service) =>
      service.handlers.map((handler) => ({
        service: service.name,
        handler: handler.name,
        ingress: service.public && handler.public !== false,
      })),
    );
}

/** What each call of a run's start or read would take; a start's input names a command. */
const BODIES: Record<string, unknown> = {
  start: { machine: 'execution', input: { command: ['touch', '/tmp/never'] } },
  send: { event: { type: 'START' } },
  history: { after: 0 },
};

describe('the run objects through the ingress', () => {
  it('refuses every call without the token, with a wrong one or from a web page, and writes nothing', async () => {
    const all = await handlers();
    // Every lifecycle's object and the run directory; the actor host is private as a whole.
    expect(all.filter((h) => h.ingress).map((h) => `${h.service}/${h.handler}`)).toEqual(
      expect.arrayContaining(['statewright-runs/start', 'statewright-runs/machine', 'statewright-execution/snapshot']),
    );
    expect(all.filter((h) => !h.ingress).map((h) => `${h.service}/${h.handler}`)).toEqual(
      expect.arrayContaining([
        'statewright-execution/start',
        'statewright-execution/fire',
        'statewright-execution/fireDelay',
        'statewright-session/start',
      ]),
    );
    const token = host.node.token;
    const tries: Array<{ headers: Record<string, string>; status: number; message: string; get?: boolean }> = [
      { headers: {}, status: 401, message: RestateUnauthorizedError.MISSING },
      { headers: { authorization: 'Basic dXNlcjpwYXNz' }, status: 401, message: RestateUnauthorizedError.MISSING },
      { headers: { authorization: `Bearer ${token}x` }, status: 401, message: RestateUnauthorizedError.WRONG },
      {
        headers: { authorization: `Bearer ${token.slice(0, -1)}` },
        status: 401,
        message: RestateUnauthorizedError.WRONG,
      },
      {
        headers: { authorization: `Bearer ${token}`, origin: 'http://evil.test' },
        status: 403,
        message: RestateOriginError.forOrigin('http://evil.test'),
      },
      { headers: { origin: 'null' }, status: 403, message: RestateOriginError.forOrigin('null') },
      { headers: { authorization: `Bearer ${token}` }, get: true, status: 403, message: RestateOriginError.NOT_JSON },
      {
        headers: { authorization: `Bearer ${token}`, 'sec-fetch-site': 'same-origin' },
        status: 403,
        message: RestateOriginError.FROM_A_PAGE,
      },
    ];
    for (const { service, handler, ingress } of all)
      for (const attempt of tries) {
        for (const key of ['kept', 'new-run']) {
          const answer = await call(
            `/${service}/${key}/${handler}`,
            BODIES[handler] ?? null,
            attempt.headers,
            attempt.get,
          );
          const what = `${attempt.get ? 'GET' : 'POST'} ${service}/${key}/${handler} with ${JSON.stringify(attempt.headers)}`;
          if (!ingress) {
            expect(answer.status, what).toBe(400);
            expect(answer.message, what).toMatch(/not public/);
          } else {
            expect({ status: answer.status, message: answer.message }, what).toEqual({
              status: attempt.status,
              message: attempt.message,
            });
            expect(answer.text, what).not.toContain('kept-secret');
          }
        }
      }
    await expect(host.runtime.getSnapshot('new-run')).rejects.toBeInstanceOf(UnknownRunError);
    // The worker's log says which call was refused and why, in a line.
    expect(host.logs.map((entry) => entry.message)).toContain(
      'restate: call to statewright-runs/new-run/start refused: Refused a call from the web page at http://evil.test',
    );
    expect(await host.runtime.getSnapshot('kept')).toMatchObject({ state: 'queued', seq: 1 });
    expect((await host.runtime.list()).map((run) => run.runId)).toEqual(['kept']);
  });

  it('gives a client without the token, or with another, the typed refusal', async () => {
    for (const [token, message] of [
      [undefined, RestateUnauthorizedError.MISSING],
      ['another-token-of-enough-length', RestateUnauthorizedError.WRONG],
    ] as const) {
      const client: RestateRuntime = restateRuntime({
        ingress: host.node.ingress,
        admin: host.node.admin,
        ...(token && { token }),
      });
      try {
        const started = await client.start('execution', { id: 'no-token-run' }).catch((error: unknown) => error);
        expect(started).toBeInstanceOf(RestateUnauthorizedError);
        expect(started).toMatchObject({ kind: 'unauthorized', message });
        await expect(client.getSnapshot('kept')).rejects.toBeInstanceOf(RestateUnauthorizedError);
        await expect(client.history('kept')).rejects.toBeInstanceOf(RestateUnauthorizedError);
      } finally {
        await client.close();
      }
    }
    await expect(host.runtime.getSnapshot('no-token-run')).rejects.toBeInstanceOf(UnknownRunError);
  });

  it('refuses a malformed body from a caller with the token as a typed value, never a retried failure', async () => {
    const auth = { authorization: `Bearer ${host.node.token}` };
    for (const [path, body, name] of [
      ['/statewright-runs/odd-1/start', null, 'InvalidArgumentError'],
      ['/statewright-runs/odd-1/start', { machine: 7 }, 'InvalidArgumentError'],
      ['/statewright-execution/kept/send', null, 'MalformedEventError'],
      ['/statewright-execution/kept/send', { event: 'START' }, 'MalformedEventError'],
    ] as const) {
      const answer = await call(path, body, auth);
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(200);
      expect(JSON.parse(answer.text), `${path} ${JSON.stringify(body)}`).toMatchObject({ refused: { name } });
    }
    await expect(host.runtime.getSnapshot('odd-1')).rejects.toBeInstanceOf(UnknownRunError);
  });

  it("serves an allowed origin with the token, and a refused call's idempotency key does not answer the user's own", async () => {
    const token = host.node.token;
    const allowed = await call(
      '/statewright-runs/allowed-1/start',
      { machine: 'execution' },
      {
        authorization: `Bearer ${token}`,
        origin: ALLOWED,
      },
    );
    expect(allowed.status).toBe(200);
    expect(await host.runtime.getSnapshot('allowed-1')).toMatchObject({ state: 'pending' });

    // A page guesses the key of an event the user will send, and sends it first: refused, and kept by
    // Restate under that key. The user's own send with that key is applied all the same.
    await host.runtime.start('execution', { id: 'keyed' });
    const guessed = await call(
      '/statewright-execution/keyed/send',
      { event: { type: 'ENQUEUE' }, options: { idempotencyKey: 'push-1' } },
      { 'idempotency-key': 'event:push-1', origin: 'http://evil.test' },
    );
    expect(guessed.status).toBe(403);
    const sent = await host.runtime.dispatch('keyed', { type: 'ENQUEUE' }, { idempotencyKey: 'push-1' });
    expect(sent).toMatchObject({ state: 'queued', seq: 1 });
  });
});
