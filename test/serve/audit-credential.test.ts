/**
 * The audit trail's `credential`, on the API app in this process: who sent each event by the
 * credential its request showed (serve's token, the live view's per-tab credential, none on a
 * serve without a token), whatever the request's body says. test/serve/agent-credential.test.ts
 * does the same for a session agent's own credential, on a real serve.
 */
import { afterEach, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { apiApp } from '../../src/serve/api-app.js';
import { StepStreams } from '../../src/serve/step-stream.js';
import { memoryStore } from '../../src/stores/index.js';
import { testDir } from '../stores/temp-dir.js';

const TOKEN = 'the-user-token-of-this-test-0123';
const runtimes: Runtime[] = [];
afterEach(async () => {
  while (runtimes.length) await runtimes.pop()!.close();
});

async function api(token: string | undefined) {
  const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles });
  runtimes.push(runtime);
  const app = apiApp({
    runtime,
    start: (machine, options) => runtime.start(machine as 'execution', options),
    steps: new StepStreams(runtime),
    guard: { boundHost: '127.0.0.1' },
    uiDir: testDir('audit-credential'),
    ...(token && { token }),
  });
  const call = async (method: string, path: string, authorization: string | undefined, body?: unknown) => {
    const response = await app.request(`http://127.0.0.1${path}`, {
      method,
      headers: {
        host: '127.0.0.1',
        ...(authorization && { authorization }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  return { runtime, call };
}

/** Each event's [type, actor, credential] in the run's history. */
const trail = (history: any) => history.events.map((e: any) => [e.event.type, e.actor, e.credential ?? null]);

it("records the credential a request showed, not what its body says: the user's token, the view's, or none", async () => {
  const { runtime, call } = await api(TOKEN);
  await runtime.start('execution', { id: 'job-1' });
  const bearer = `Bearer ${TOKEN}`;
  // The body's `credential` is not the request's to give: the token's holder is recorded.
  const sent = await call('POST', '/api/runs/job-1/events', bearer, {
    event: { type: 'ENQUEUE' },
    actor: 'alice',
    credential: 'session:someone-else',
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  // The live view: its per-tab credential, traded for the token.
  const view = await call('POST', '/api/view-session', bearer, {});
  expect(view.status, JSON.stringify(view.body)).toBe(201);
  const started = await call('POST', '/api/runs/job-1/events', `View ${view.body.credential}`, {
    event: { type: 'START' },
    actor: 'Ada Lovelace',
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect(trail((await call('GET', '/api/runs/job-1/history', bearer)).body)).toEqual([
    ['ENQUEUE', 'alice', 'user-token'],
    ['START', 'Ada Lovelace', 'view'],
  ]);

  // A serve without a token: anyone local could have sent it, and the trail says so.
  const open = await api(undefined);
  await open.runtime.start('execution', { id: 'job-2' });
  await open.call('POST', '/api/runs/job-2/events', undefined, {
    event: { type: 'ENQUEUE' },
    actor: 'alice',
    credential: 'user-token',
  });
  expect(trail((await open.call('GET', '/api/runs/job-2/history', undefined)).body)).toEqual([
    ['ENQUEUE', 'alice', 'no-token'],
  ]);
  // In-process sends carry none.
  await open.runtime.dispatch('job-2', { type: 'START' }, { actor: 'orchestrator' });
  expect(trail((await open.call('GET', '/api/runs/job-2/history', undefined)).body).at(-1)).toEqual([
    'START',
    'orchestrator',
    null,
  ]);
});
