/**
 * `statewright serve --engine restate:`, in process: the HTTP API and the step stream the live view
 * reads, over runs on a Restate node (`restateViewRuntime`): the runs list, a run, its history and
 * explanation, an event sent through the API (a refusal answered 409 with its typed error), a
 * session started through the API with just its query and config (its run object fills `created_at`
 * and `log_path` as a worker's does), and the steps of events another client sent arriving on `/api/steps`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { restateRuntime, restateViewRuntime } from '../../src/restate/index.js';
import { startServe, type RunningServer } from '../../src/serve/serve.js';
import { takeSseEvents, type SseEvent } from '../support/sse-blocks.js';
import { until } from '../support/until.js';
import { startRestateHost, type RestateHost } from './restate-host.js';

let host: RestateHost;
let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statewright-restate-serve-'));
  host = await startRestateHost({ machines: lifecycles, home: join(dir, 'worker') });
  const engine = restateViewRuntime(
    restateRuntime({ ingress: host.node.ingress, admin: host.node.admin, token: host.node.token, pollMs: 50 }),
    lifecycles,
  );
  server = await startServe({
    store: engine.store,
    engine,
    machines: lifecycles,
    home: dir,
    taskDir: dir,
    host: '127.0.0.1',
    port: 0,
    token: false,
    uiDir: join(dir, 'ui'),
  });
}, 120_000);

afterAll(async () => {
  await server?.close({ handOver: false });
  await host?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
};

it('serves the runs on Restate: list, run, history, explain, and events with their refusals', async () => {
  await host.runtime.start('execution', { id: 'view-1' });
  await host.runtime.dispatch('view-1', { type: 'ENQUEUE' }, { actor: 'ci', reason: 'pushed' });
  const list = await api('GET', '/api/runs?machine=execution');
  expect(list.status).toBe(200);
  expect(list.body.runs.map((r: { runId: string }) => r.runId)).toContain('view-1');
  const counts = await api('GET', '/api/runs/counts?machine=execution');
  expect(counts.body.counts.queued).toBeGreaterThanOrEqual(1);
  const run = await api('GET', '/api/runs/view-1');
  expect(run.body.run).toMatchObject({ runId: 'view-1', state: 'queued', seq: 1 });
  const sent = await api('POST', '/api/runs/view-1/events', { event: { type: 'START' }, actor: 'ana', reason: 'go' });
  expect([sent.status, sent.body.run.state]).toEqual([200, 'running']);
  const refused = await api('POST', '/api/runs/view-1/events', { event: { type: 'ENQUEUE' } });
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ error: 'InvalidTransitionError', kind: 'conflict' });
  const history = await api('GET', '/api/runs/view-1/history');
  expect(history.body.events.map((e: { event: { type: string }; actor?: string }) => [e.event.type, e.actor])).toEqual([
    ['ENQUEUE', 'ci'],
    ['START', 'ana'],
  ]);
  const explained = await api('GET', '/api/runs/view-1/explain');
  expect(explained.body).toMatchObject({ runId: 'view-1', state: 'running', owner: null });
  // No store host owns it: the explanation says where it lives instead.
  expect(explained.body.hostedOn).toEqual({ engine: 'restate', object: 'statewright-execution', key: 'view-1' });
  expect((await api('GET', '/api/runs/no-such-run')).status).toBe(404);
});

it('starts a session through the API with just its query and config, as on a store', async () => {
  const before = Date.now();
  const started = await api('POST', '/api/runs', {
    machine: 'session',
    id: 'view-s1',
    input: { query: 'summarise the repo', config: { command: ['true'] } },
  });
  expect(started.status).toBe(201);
  expect(started.body.run).toMatchObject({ runId: 'view-s1', machine: 'session', state: 'starting' });
  const { created_at: createdAt, log_path: logPath } = started.body.run.context;
  expect(logPath).toBe(join(dir, 'worker', 'sessions', 'view-s1.jsonl'));
  expect(createdAt).toBeGreaterThanOrEqual(before);
  expect(createdAt).toBeLessThanOrEqual(Date.now());
  // Its start deadline is Restate's to fire, not a missing host's.
  const explained = await api('GET', '/api/runs/view-s1/explain');
  expect(explained.body.deadlines.length).toBeGreaterThan(0);
  expect(explained.body.hostedOn).toMatchObject({ object: 'statewright-session', key: 'view-s1' });
  expect(explained.body.verdict).not.toContain('no live process hosts it');
  // What the caller gives is kept.
  const given = await host.runtime.start('session', {
    id: 'view-s2',
    input: { query: 'q', created_at: 1_000, log_path: join(dir, 'mine.jsonl') },
  });
  expect(given.context).toMatchObject({ created_at: 1_000, log_path: join(dir, 'mine.jsonl') });
});

it('refuses a session whose input is wrong with its typed error, starting nothing', async () => {
  const refused = await api('POST', '/api/runs', {
    machine: 'session',
    id: 'view-bad',
    input: { query: '', config: { command: [] } },
  });
  // As beside a store: the machine's refusal of its input, a 422 naming every wrong field.
  expect(refused.status).toBe(422);
  expect(refused.body).toMatchObject({ error: 'MachineError', kind: 'invalid' });
  expect(refused.body.message).toMatch(/query: Too small.*config\.command: Too small/);
  expect((await api('GET', '/api/runs/view-bad')).status).toBe(404);
});

it('streams the steps of events another client sent', async () => {
  await host.runtime.start('execution', { id: 'view-2' });
  const controller = new AbortController();
  const response = await fetch(`${server.url}/api/steps`, { signal: controller.signal });
  const reader = response.body!.getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      const taken = takeSseEvents(buffer + new TextDecoder().decode(value));
      buffer = taken.rest;
      events.push(...taken.events);
    }
  })();
  try {
    // The stream reads the runs from its first poll on: sent until it has seen one.
    await until('the step of view-2 on the stream', async () => {
      await host.runtime.dispatch('view-2', { type: events.length ? 'START' : 'ENQUEUE' }, { ifAccepted: true });
      return events.some((e) => e.event === 'step' && e.id?.startsWith('view-2:'));
    });
    const step = JSON.parse(events.find((e) => e.event === 'step' && e.id?.startsWith('view-2:'))!.data!);
    expect(step).toMatchObject({ runId: 'view-2', machine: 'execution' });
  } finally {
    controller.abort();
    await reading;
  }
});
