/**
 * The HTTP API of `statewright serve`, over real HTTP against the built CLI run as a child process
 * on a temp SQLite store: every route, each error status, the step stream, and the token.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { renderStatechart } from '../../src/graph/statechart-svg.js';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { testDir } from '../stores/temp-dir.js';
import { api, authOf, startServeProcess } from '../support/serve-process.js';
import { takeSseEvents } from '../support/sse-blocks.js';

const bin = fileURLToPath(new URL('../../bin/statewright.js', import.meta.url));

/** Opens the step stream and collects its `step` events until `done` says enough. */
async function watchSteps(url: string, headers: Record<string, string> = authOf(url)) {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/steps`, { headers, signal: controller.signal });
  const steps: Array<{ id: string; data: any }> = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let wake: () => void = () => {};
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      const { events, rest } = takeSseEvents(buffer + decoder.decode(value, { stream: true }));
      buffer = rest;
      for (const { event, id, data } of events) if (event === 'step') steps.push({ id: id!, data: JSON.parse(data!) });
      wake();
    }
  })();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    steps,
    async until(enough: (steps: Array<{ id: string; data: any }>) => boolean) {
      while (!enough(steps)) await new Promise<void>((resolve) => (wake = resolve));
    },
    close() {
      controller.abort();
      return reading;
    },
  };
}

describe('statewright serve: the HTTP API', () => {
  it('answers every route with JSON, and each error with its typed name and status', async () => {
    const dir = testDir('serve-api');
    const server = await startServeProcess(dir, ['--store', `sqlite:${join(dir, 'state.db')}`, '--create']);
    const { url } = server;

    const machines = await api(url, 'GET', '/api/machines');
    expect(machines.status).toBe(200);
    expect(machines.body.machines.map((m: { name: string }) => m.name)).toEqual([
      'execution',
      'review-loop',
      'task',
      'session',
      'codon',
      'codon-run',
    ]);
    expect(machines.body.machines[0]).toMatchObject({
      name: 'execution',
      version: 1,
      initial: 'pending',
      terminalStates: ['success', 'failed', 'cancelled', 'skipped'],
      events: expect.arrayContaining(['ENQUEUE', 'START']),
    });
    expect(machines.body.machines[0].states).toHaveLength(11);
    // Every event written out on asking; by default the ones no person sends folded into a muted line.
    const svg = await fetch(`${url}/api/machines/session/diagram.svg?events=all`, { headers: authOf(url) });
    expect([svg.status, svg.headers.get('content-type'), await svg.text()]).toEqual([
      200,
      'image/svg+xml',
      await renderStatechart(lifecycles.session.machine),
    ]);
    const folded = await fetch(`${url}/api/machines/session/diagram.svg`, { headers: authOf(url) });
    expect([folded.status, folded.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(await folded.text()).toMatch(/data-quiet="[^"]*agent\.result/);
    expect(await api(url, 'GET', '/api/machines/nope/diagram.svg')).toMatchObject({
      status: 404,
      body: { error: 'UnknownMachineError' },
    });

    const stream = await watchSteps(url);
    expect([stream.status, stream.type]).toEqual([200, 'text/event-stream']);

    const created = await api(url, 'POST', '/api/runs', {
      machine: 'execution',
      id: 'job-1',
      input: { name: 'build' },
    });
    expect(created).toMatchObject({
      status: 201,
      body: {
        run: {
          runId: 'job-1',
          machine: 'execution',
          state: 'pending',
          status: 'active',
          seq: 0,
          input: { name: 'build' },
          owner: { pid: server.child.pid },
        },
      },
    });
    expect(created.body.run.snapshot).toBeUndefined();
    const moved = await api(url, 'POST', '/api/runs/job-1/events', {
      event: { type: 'ENQUEUE' },
      actor: 'alice',
      reason: 'ready',
      idempotencyKey: 'k1',
    });
    expect(moved).toMatchObject({ status: 200, body: { run: { state: 'queued', seq: 1 } } });
    // The same key again: the earlier result, nothing applied twice.
    expect(
      await api(url, 'POST', '/api/runs/job-1/events', { event: { type: 'ENQUEUE' }, idempotencyKey: 'k1' }),
    ).toMatchObject({ status: 200, body: { run: { state: 'queued', seq: 1 } } });
    expect(await api(url, 'GET', '/api/runs/job-1')).toMatchObject({
      status: 200,
      body: { run: { runId: 'job-1', state: 'queued' } },
    });
    expect((await api(url, 'GET', '/api/runs/job-1/history')).body).toEqual({
      events: [
        {
          seq: 1,
          event: { type: 'ENQUEUE', at: expect.any(Number) },
          label: 'ENQUEUE',
          at: expect.any(Number),
          actor: 'alice',
          // The actor in words (`statewright history` prints it): a person's name as it is.
          actorLabel: 'alice',
          reason: 'ready',
          // Set by serve from the credential the request showed: the token serve printed.
          credential: 'user-token',
          idempotencyKey: 'k1',
          before: 'pending',
          after: 'queued',
        },
      ],
    });

    // The step stream told both committed steps, in order, after their commits.
    await stream.until((steps) => steps.length >= 2);
    expect(stream.steps.map((s) => s.data)).toEqual([
      {
        runId: 'job-1',
        machine: 'execution',
        seq: 0,
        after: 'pending',
        status: 'active',
        at: expect.any(Number),
        run: expect.objectContaining({ runId: 'job-1', seq: 0, state: 'pending', status: 'active' }),
      },
      {
        runId: 'job-1',
        machine: 'execution',
        seq: 1,
        event: { type: 'ENQUEUE', at: expect.any(Number) },
        before: 'pending',
        after: 'queued',
        status: 'active',
        at: expect.any(Number),
        run: expect.objectContaining({ runId: 'job-1', seq: 1, state: 'queued', status: 'active' }),
      },
    ]);
    // Each step's id is its run and seq: what `?run=job-1` with Last-Event-ID replays from.
    expect(stream.steps.map((s) => s.id)).toEqual(['job-1:0', 'job-1:1']);

    // Why the run is where it is: the explain route, and each listed run's verdict.
    const explained = await api(url, 'GET', '/api/runs/job-1/explain');
    expect(explained).toMatchObject({
      status: 200,
      body: { runId: 'job-1', machine: 'execution', state: 'queued', status: 'active', verdict: expect.any(String) },
    });
    expect(explained.body.accepts.map((a: { type: string }) => a.type)).toContain('START');
    expect(await api(url, 'GET', '/api/runs/nope/explain')).toMatchObject({
      status: 404,
      body: { error: 'UnknownRunError' },
    });
    expect((await api(url, 'GET', '/api/runs')).body.runs).toEqual([
      expect.objectContaining({ runId: 'job-1', verdict: explained.body.verdict }),
    ]);

    await api(url, 'POST', '/api/runs', { machine: 'execution', id: 'job-2' });
    await api(url, 'POST', '/api/runs/job-2/events', { event: { type: 'SKIP' } });
    const ids = async (query: string) =>
      ((await api(url, 'GET', `/api/runs${query}`)).body.runs as Array<{ runId: string }>).map((r) => r.runId);
    expect(await ids('')).toEqual(['job-2', 'job-1']); // newest first
    expect(await ids('?status=done')).toEqual(['job-2']);
    expect(await ids('?state=queued&machine=execution')).toEqual(['job-1']);
    expect(await ids('?limit=1')).toEqual(['job-2']);
    expect(await ids('?machine=session')).toEqual([]);

    // 404: an unknown run, an unknown machine, an unknown route.
    expect(await api(url, 'GET', '/api/runs/nope')).toMatchObject({
      status: 404,
      body: { error: 'UnknownRunError', message: expect.stringMatching(/Unknown run 'nope'/) },
    });
    expect(await api(url, 'GET', '/api/runs/nope/history')).toMatchObject({
      status: 404,
      body: { error: 'UnknownRunError' },
    });
    expect(await api(url, 'POST', '/api/runs/nope/events', { event: { type: 'START' } })).toMatchObject({
      status: 404,
      body: { error: 'UnknownRunError' },
    });
    expect(await api(url, 'POST', '/api/runs', { machine: 'nope' })).toMatchObject({
      status: 404,
      body: { error: 'UnknownMachineError' },
    });
    expect(await api(url, 'GET', '/api/nothing')).toMatchObject({ status: 404, body: { error: 'NotFound' } });
    // 409: not accepted now, an id taken.
    expect(await api(url, 'POST', '/api/runs/job-1/events', { event: { type: 'SUCCEED' } })).toMatchObject({
      status: 409,
      body: {
        error: 'InvalidTransitionError',
        message: expect.stringMatching(/^Invalid transition: cannot apply event 'SUCCEED' in state 'queued'/),
      },
    });
    expect(await api(url, 'POST', '/api/runs', { machine: 'execution', id: 'job-1' })).toMatchObject({
      status: 409,
      body: { error: 'RunExistsError' },
    });
    // 422: invalid input for the machine, bad bodies, bad options and filters.
    expect(
      await api(url, 'POST', '/api/runs', { machine: 'session', id: 's-bad', input: { config: { command: [] } } }),
    ).toMatchObject({
      status: 422,
      body: { error: 'MachineError', message: expect.stringMatching(/Session input is not valid: .*missing query/) },
    });
    expect(await api(url, 'POST', '/api/runs', '{"machine": ')).toMatchObject({
      status: 422,
      body: { error: 'RequestBodyError', message: expect.stringMatching(/not JSON/) },
    });
    expect(await api(url, 'POST', '/api/runs', { id: 'x' })).toMatchObject({
      status: 422,
      body: { error: 'RequestBodyError', message: expect.stringMatching(/'machine' must name a lifecycle/) },
    });
    expect(await api(url, 'POST', '/api/runs/job-1/events', { type: 'START' })).toMatchObject({
      status: 422,
      body: { error: 'RequestBodyError', message: expect.stringMatching(/'event' must be an object/) },
    });
    expect(await api(url, 'POST', '/api/runs/job-1/events', { event: { type: 'START' }, actor: 5 })).toMatchObject({
      status: 422,
      body: { error: 'InvalidArgumentError' },
    });
    expect(await api(url, 'POST', '/api/runs', { machine: 'execution', id: '' })).toMatchObject({
      status: 422,
      body: { error: 'InvalidArgumentError' },
    });
    expect(await api(url, 'GET', '/api/runs?status=sleeping')).toMatchObject({
      status: 422,
      body: { error: 'QueryParameterError', parameter: 'status' },
    });
    expect(await api(url, 'GET', '/api/runs?limit=-1')).toMatchObject({
      status: 422,
      body: { error: 'QueryParameterError', parameter: 'limit' },
    });
    // The step stream replays one run's steps: a seq without the run is refused before any stream opens.
    expect(await api(url, 'GET', '/api/steps?since=1')).toMatchObject({
      status: 422,
      body: { error: 'QueryParameterError', parameter: 'since' },
    });
    // 413: a body over the limit, refused before it is read whole.
    expect(
      await api(url, 'POST', '/api/runs/job-1/events', { event: { type: 'START', blob: 'x'.repeat(2 * 1024 * 1024) } }),
    ).toMatchObject({ status: 413, body: { error: 'BodyTooLargeError' } });
    // None of the refusals changed anything.
    expect(await api(url, 'GET', '/api/runs/job-1')).toMatchObject({ body: { run: { state: 'queued', seq: 1 } } });
    expect(await ids('')).toEqual(['job-2', 'job-1']);
    expect((await api(url, 'GET', '/api/runs/job-1/history')).body.events).toHaveLength(1);

    // The live view, built by `npm run build` (build:ui) before the tests run; a path of its own (a hash route reloaded) gets its page too.
    const page = await fetch(`${url}/`, { headers: authOf(url) });
    expect([page.status, await page.text()]).toEqual([200, expect.stringMatching(/<div id="app"><\/div>/)]);
    expect(await (await fetch(`${url}/runs/job-1`, { headers: authOf(url) })).text()).toMatch(/<div id="app"><\/div>/);

    await stream.close();
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('says which port is taken, for the API and for the inspector, without a stack trace', async () => {
    const dir = testDir('serve-port');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const store = `sqlite:${join(dir, 'state.db')}`;
      const api = await execa(process.execPath, [bin, 'serve', '--port', String(port), '--store', store, '--create'], {
        cwd: dir,
        reject: false,
      });
      expect([api.exitCode, api.stderr]).toEqual([
        1,
        `statewright: Cannot serve the API on 127.0.0.1:${port}: the port is in use by another process. Stop that process, or pick another port with --port <n> (0 picks a free one).`,
      ]);
      const inspector = await execa(
        process.execPath,
        [bin, 'serve', '--port', '0', '--inspect', '--inspect-port', String(port), '--store', store, '--create'],
        { cwd: dir, reject: false },
      );
      expect([inspector.exitCode, inspector.stderr]).toEqual([
        1,
        expect.stringMatching(
          new RegExp(
            `^statewright: Cannot serve the Stately inspector bridge on 127.0.0.1:${port}: the port is in use .* --inspect-port <n>`,
          ),
        ),
      ]);
    } finally {
      taken.close();
    }
  });

  it('lists the runs it cannot restore with their reason, explains them, and hosts the others', async () => {
    const dir = testDir('serve-set-aside');
    const path = join(dir, 'state.db');
    // A newer statewright (execution v9, since rolled back) wrote 'newer'; 'kept' is ours. Both by a host that is gone.
    const store = sqliteStore(path);
    const gone = { pid: spawnSync(process.execPath, ['-e', '']).pid!, pidStart: 'gone' };
    const v9 = await createRuntime({
      store,
      machines: { ...lifecycles, execution: { ...lifecycles.execution, version: 9 } },
      recover: false,
      owner: gone,
    });
    await v9.start('execution', { id: 'newer' });
    await v9.close();
    const v1 = await createRuntime({ store, machines: lifecycles, recover: false, owner: gone });
    await v1.start('execution', { id: 'kept' });
    await v1.close();
    await store.close();

    const serve = await startServeProcess(dir, ['--store', `sqlite:${path}`]);
    try {
      const setAside = await api(serve.url, 'GET', '/api/runs?setAside=true');
      expect(setAside.status).toBe(200);
      expect(setAside.body.runs.map((run: { runId: string }) => run.runId)).toEqual(['newer']);
      expect(setAside.body.runs[0].setAside.reason).toMatch(
        /^Run 'newer' was stored by execution v9, but this runtime has execution v1/,
      );
      expect((await api(serve.url, 'GET', '/api/runs/newer')).body.run.setAside.reason).toMatch(/v9/);
      const explained = await api(serve.url, 'GET', '/api/runs/newer/explain');
      expect(explained.body).toMatchObject({
        setAside: { reason: expect.stringMatching(/v9/) },
        verdict: expect.stringMatching(/^set aside: /),
      });
      const refused = await api(serve.url, 'POST', '/api/runs/newer/events', { event: { type: 'ENQUEUE' } });
      expect([refused.status, refused.body.error]).toEqual([409, 'RunSetAsideError']);
      // The other run is hosted as ever, and is not listed as set aside.
      expect((await api(serve.url, 'GET', '/api/runs/kept')).body.run).not.toHaveProperty('setAside');
      expect(
        (await api(serve.url, 'POST', '/api/runs/kept/events', { event: { type: 'ENQUEUE' } })).body.run.state,
      ).toBe('queued');
    } finally {
      await serve.stop();
    }
  });
});
