/**
 * `GET /api/openapi.json` and the CORS answer, on the API app in this process over a runtime on a
 * SQLite store: the description is valid OpenAPI 3.1 (checked by a validator from npm), describes
 * every route hono has (a route added without a description fails here), is answered without the
 * token but behind the Host and Origin checks, and real answers of the API, errors included, are
 * what it says they are. A preflight is answered 204 for an origin named with `--cors-origin`, and
 * refused 403 with a typed error saying how to allow one otherwise, never a 404.
 */
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { apiApp } from '../../src/serve/api-app.js';
import { API_ROUTES } from '../../src/serve/api-routes.js';
import { StepStreams } from '../../src/serve/step-stream.js';
import { sqliteStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

const TOKEN = 'openapi-test-token-0123456789abcdef';
const CORS = 'http://localhost:5173';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function apiOnSqlite(options: { token?: string; corsOrigins?: string[] } = {}) {
  const dir = testDir('openapi');
  const store = sqliteStore(join(dir, 'state.db'));
  const runtime: Runtime = await createRuntime({ store, machines: lifecycles });
  const app = apiApp({
    runtime,
    start: (machine, start) => runtime.start(machine, start),
    steps: new StepStreams(runtime),
    guard: { boundHost: '127.0.0.1', ...(options.corsOrigins && { corsOrigins: options.corsOrigins }) },
    uiDir: dir,
    ...(options.token && { token: options.token }),
  });
  cleanups.push(async () => {
    await runtime.close();
    await store.close();
  });
  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const response = await app.request(`http://127.0.0.1:4680${path}`, {
      method,
      headers: {
        host: '127.0.0.1:4680',
        ...(options.token && { authorization: `Bearer ${options.token}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, body: json, text };
  };
  return { app, call };
}

/** Checks answers against the schemas the description gives for them (its components referred to by `$ref`). */
function answerChecker(document: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'https://statewright.test/openapi.json', components: document.components });
  const base = 'https://statewright.test/openapi.json';
  return (method: string, path: string, status: number, body: unknown): Array<{ keyword: string }> => {
    const operation = document.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} described`).toBeDefined();
    const response = operation.responses[String(status)];
    expect(response, `${method} ${path} describes the status ${status}`).toBeDefined();
    const schema = response.content['application/json'].schema;
    const validate = ajv.compile({
      $id: `${base}/${method}${path}/${status}/${Math.random()}`,
      ...rebase(schema, base),
    });
    return validate(body) ? [] : validate.errors!;
  };
}

/** The description's local references made absolute, to the schema ajv holds its components in. */
const rebase = (schema: unknown, base: string) =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`));

describe('GET /api/openapi.json', () => {
  it('is valid OpenAPI 3.1, answered without the token, and describes every route of the app', async () => {
    const { app, call } = await apiOnSqlite({ token: TOKEN });
    const answer = await call('GET', '/api/openapi.json', { authorization: '' });
    expect(answer.status).toBe(200);
    const document = answer.body;
    expect(document.openapi).toBe('3.1.0');

    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    // Every route hono holds under /api is described, and every route described is one hono holds.
    const routes = app.routes
      .filter((route) => route.method !== 'ALL' && route.path.startsWith('/api/'))
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    const described = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(routes)).toEqual(new Set(described));
    expect(routes).toHaveLength(Object.keys(API_ROUTES).length);
    // What hono answers under /api besides: its middleware and the typed 404 of an unknown route.
    expect(
      app.routes.filter((route) => route.method === 'ALL' && route.path.startsWith('/api/')).map((route) => route.path),
    ).toEqual(['/api/*', '/api/*']);

    // The token's ways, and the description itself left open.
    expect(Object.keys(document.components.securitySchemes)).toEqual(['bearer', 'view']);
    expect(document.components.securitySchemes.view).toMatchObject({ type: 'http', scheme: 'View' });
    expect(document.security).toEqual([{ bearer: [] }, { view: [] }]);
    expect(document.paths['/api/openapi.json'].get.security).toEqual([]);
    expect(document.paths['/api/runs/{id}'].get.responses['401']).toBeDefined();
    // The request schemas are the handlers' own.
    expect(document.components.schemas.StartRunBody).toMatchObject({ required: ['machine'] });
    expect(document.paths['/api/runs'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'machine',
      'status',
      'state',
      'q',
      'limit',
      'cursor',
      'setAside',
      'waitsForPerson',
    ]);
    expect(document.paths['/api/runs'].get.parameters[1].schema).toEqual({
      type: 'string',
      enum: ['active', 'done', 'error', 'stopped'],
    });
  });

  it('is behind the Host and Origin checks like every route; without a token it has no security schemes', async () => {
    const { call } = await apiOnSqlite({ token: TOKEN });
    expect(await call('GET', '/api/openapi.json', { host: 'evil.example' })).toMatchObject({
      status: 421,
      body: { error: 'HostNotAllowedError' },
    });
    expect(await call('GET', '/api/openapi.json', { origin: 'http://evil.example' })).toMatchObject({
      status: 403,
      body: { error: 'ForeignOriginError' },
    });
    // Every other route still needs the token.
    expect(await call('GET', '/api/machines', { authorization: '' })).toMatchObject({ status: 401 });

    const open = await apiOnSqlite();
    const document = (await open.call('GET', '/api/openapi.json')).body;
    expect(document.components.securitySchemes).toBeUndefined();
    expect(document.security).toBeUndefined();
    expect(document.paths['/api/runs/{id}'].get.responses['401']).toBeUndefined();
    expect((await new Validator().validate(document)).valid).toBe(true);
  });

  it("says what the API answers: real answers, errors included, fit the description's schemas", async () => {
    const { call } = await apiOnSqlite({ token: TOKEN });
    const document = (await call('GET', '/api/openapi.json')).body;
    const errorsOf = answerChecker(document);
    const check = (method: string, path: string, status: number, body: unknown) =>
      expect(errorsOf(method, path, status, body), `${method} ${path} ${status}: ${JSON.stringify(body)}`).toEqual([]);
    const fits = async (method: string, path: string, described: string, body?: unknown, status = 200) => {
      const answer = await call(method, path, {}, body);
      expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 300)}`).toBe(status);
      check(method, described, answer.status, answer.body);
      return answer.body;
    };

    // The checker refuses what the description does not allow: a field left out, one it does not name.
    const keywords = (method: string, path: string, status: number, body: unknown) =>
      errorsOf(method, path, status, body).map((error) => error.keyword);
    expect(keywords('GET', '/api/host', 200, { hostId: 'h' })).toContain('required');
    const run = (await call('POST', '/api/runs', {}, { machine: 'execution', id: 'probe' })).body.run;
    expect(keywords('GET', '/api/runs/{id}', 200, { run: { ...run, extra: 1 } })).toContain('additionalProperties');
    expect(keywords('GET', '/api/runs/{id}', 404, { error: 'X', kind: 'no-such-kind', message: '' })).toContain('enum');

    await fits('GET', '/api/host', '/api/host');
    await fits('GET', '/api/machines', '/api/machines');
    await fits('POST', '/api/runs', '/api/runs', { machine: 'execution', id: 'job-1', input: {} }, 201);
    await fits('POST', '/api/runs/job-1/events', '/api/runs/{id}/events', {
      event: { type: 'ENQUEUE' },
      actor: 'alice',
      reason: 'ready',
    });
    const page = await fits('GET', '/api/runs?limit=1', '/api/runs');
    expect(page.runs).toHaveLength(1);
    expect(page.next).toEqual(expect.any(String));
    await fits('GET', '/api/runs/counts?machine=execution', '/api/runs/counts');
    await fits('GET', '/api/runs/job-1', '/api/runs/{id}');
    await fits('GET', '/api/runs/job-1/history', '/api/runs/{id}/history');
    await fits('GET', '/api/runs/job-1/explain', '/api/runs/{id}/explain');

    // The typed errors, each with a status its route describes.
    await fits('GET', '/api/runs/nope', '/api/runs/{id}', undefined, 404);
    await fits('GET', '/api/runs?limit=0', '/api/runs', undefined, 422);
    await fits('GET', '/api/runs/counts?status=sleeping', '/api/runs/counts', undefined, 422);
    await fits('POST', '/api/runs', '/api/runs', { id: 'x' }, 422);
    await fits('POST', '/api/runs', '/api/runs', { machine: 'execution', id: 'job-1' }, 409);
    await fits('POST', '/api/runs/job-1/events', '/api/runs/{id}/events', { event: { type: 'NO_SUCH_EVENT' } }, 409);
    await fits('POST', '/api/runs/job-1/events', '/api/runs/{id}/events', { event: 'START' }, 422);
    await fits('GET', '/api/steps?since=1', '/api/steps', undefined, 422);
    const refused = await call('GET', '/api/runs/job-1', { authorization: 'Bearer wrong-token-wrong-token-wrong' });
    expect(refused.status).toBe(401);
    check('GET', '/api/runs/{id}', 401, refused.body);
  });

  it('parses bodies and queries with the schemas it describes, keeping the typed errors', async () => {
    const { call } = await apiOnSqlite();
    expect(await call('POST', '/api/runs', {}, { id: 'x' })).toMatchObject({
      status: 422,
      body: {
        error: 'RequestBodyError',
        message: expect.stringMatching(/'machine' must name a lifecycle\. Example: /),
      },
    });
    expect(await call('POST', '/api/runs', {}, { machine: 'execution', id: 5 })).toMatchObject({
      status: 422,
      body: { error: 'RequestBodyError', message: expect.stringMatching(/'id', when given, must be a string/) },
    });
    expect(await call('POST', '/api/runs', {}, ['execution'])).toMatchObject({
      status: 422,
      body: { error: 'RequestBodyError', message: expect.stringMatching(/expected a JSON object/) },
    });
    expect(await call('POST', '/api/runs/job-1/events', {}, { event: { kind: 'START' } })).toMatchObject({
      status: 422,
      body: {
        error: 'RequestBodyError',
        message: expect.stringMatching(/'event' must be an object with a string 'type'/),
      },
    });
    // A send option of the wrong type is refused as the runtime refuses it.
    expect(await call('POST', '/api/runs/job-1/events', {}, { event: { type: 'START' }, reason: '' })).toMatchObject({
      status: 422,
      body: { error: 'InvalidArgumentError', message: expect.stringMatching(/option 'reason'/) },
    });
    for (const [query, parameter] of [
      ['limit=1.5', 'limit'],
      ['limit=0x10', 'limit'],
      ['limit=1001', 'limit'],
      ['status=sleeping', 'status'],
    ] as const) {
      expect(await call('GET', `/api/runs?${query}`), query).toMatchObject({
        status: 422,
        body: { error: 'QueryParameterError', parameter, message: expect.stringContaining('Example: /api/runs?') },
      });
    }
    // Empty values count as left out.
    expect(await call('GET', '/api/runs?status=&limit=&cursor=&q=')).toMatchObject({ status: 200, body: { runs: [] } });
  });
});

describe('CORS: an OPTIONS preflight to the API', () => {
  const preflight = {
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization, content-type',
  };

  it('is answered 204 with the Access-Control-Allow-* headers for an origin named with --cors-origin', async () => {
    const { call } = await apiOnSqlite({ token: TOKEN, corsOrigins: [CORS] });
    for (const path of ['/api/runs', '/api/runs/job-1/events', '/api/openapi.json', '/api/no-such-route']) {
      // A preflight carries no credentials: it is answered before the token is asked for.
      const answer = await call('OPTIONS', path, { authorization: '', origin: CORS, ...preflight });
      expect(answer.status, path).toBe(204);
      expect(Object.fromEntries(answer.headers)).toMatchObject({
        'access-control-allow-origin': CORS,
        'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '600',
        vary: 'Origin',
      });
    }
    // The request that follows gets its origin back too.
    const started = await call('POST', '/api/runs', { origin: CORS }, { machine: 'execution', id: 'from-page' });
    expect(started.status).toBe(201);
    expect(started.headers.get('access-control-allow-origin')).toBe(CORS);
  });

  it('from any other origin, or with no --cors-origin, is refused 403 with a typed error saying how to allow it', async () => {
    for (const corsOrigins of [undefined, [CORS]]) {
      const { call } = await apiOnSqlite({ token: TOKEN, ...(corsOrigins && { corsOrigins }) });
      const origin = corsOrigins ? 'http://evil.example' : CORS;
      for (const path of ['/api/runs', '/api/runs/job-1', '/api/no-such-route']) {
        const answer = await call('OPTIONS', path, { authorization: '', origin, ...preflight });
        expect(answer, path).toMatchObject({
          status: 403,
          body: {
            error: 'ForeignOriginError',
            kind: 'forbidden',
            message: expect.stringContaining(`start serve with --cors-origin ${origin}`),
          },
        });
        expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      }
    }
  });

  it('with no Origin (not a preflight: curl -X OPTIONS) says which methods the API takes', async () => {
    const { call } = await apiOnSqlite({ token: TOKEN });
    const answer = await call('OPTIONS', '/api/runs', { authorization: '' });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
