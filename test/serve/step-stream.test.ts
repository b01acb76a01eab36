/**
 * The step stream's back-pressure, over real HTTP in this process: `StepStreams` behind a minimal
 * hono app served by @hono/node-server, on a real runtime with the memory store. A client that
 * never reads is dropped at the bound with a log line; one that reads gets every step in order;
 * a client that goes, or is dropped, leaves no watcher and no keep-alive timer behind.
 */
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { createRuntime, type LogEntry } from '../../src/runtime/index.js';
import { MAX_UNSENT_BYTES, StepStreams } from '../../src/serve/step-stream.js';
import { memoryStore } from '../../src/stores/index.js';
import type { EventRecord } from '../../src/stores/store.js';
import { takeSseEvents } from '../support/sse-blocks.js';

const KEEP_ALIVE_MS = 15_000;
const CYCLE = ['RECOVER', 'START'] as const;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length) await cleanups.pop()!();
});

/**
 * A runtime with one run in `running`, its step streams behind `GET /api/steps`, on a free port.
 * `history` stands in for the store's audit-trail read (the replay's), around the real one.
 */
async function stepServer(history?: (read: () => Promise<EventRecord[]>) => Promise<EventRecord[]>) {
  const store = memoryStore();
  if (history) {
    const read = store.history.bind(store);
    store.history = (id) => history(() => read(id));
  }
  const runtime = await createRuntime({ store, machines: lifecycles });
  const { runId } = await runtime.start('execution');
  await runtime.dispatch(runId, { type: 'ENQUEUE' });
  await runtime.dispatch(runId, { type: 'START' });
  const streams = new StepStreams(runtime);
  // Each stream's connection, closed on the server's side.
  const closed: Array<Promise<unknown>> = [];
  const app = new Hono<{ Bindings: HttpBindings }>().get('/api/steps', (c) => {
    closed.push(once(c.env.outgoing, 'close'));
    return streams.respond(c);
  });
  const server: Server = createServer(getRequestListener(app.fetch));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const logs: LogEntry[] = [];
  let logged: () => void = () => {};
  runtime.onLog((entry) => {
    logs.push(entry);
    logged();
  });
  cleanups.push(async () => {
    streams.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
  });
  let step = 0;
  return {
    runtime,
    runId,
    streams,
    port,
    logs,
    /** Commits one step whose event carries `bytes` of padding. */
    commit: (bytes: number) => runtime.dispatch(runId, { type: CYCLE[step++ % 2]!, pad: 'x'.repeat(bytes) } as never),
    /** Resolves once the server has let go of the `n`th stream's connection (counting from 0) and the stream has heard it. */
    async gone(n: number) {
      await closed[n];
    },
    async nextLog() {
      await new Promise<void>((resolve) => (logged = resolve));
    },
  };
}

/** A raw client that sends the request, waits until the stream is open, then never reads again. */
async function stalledClient(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.write('GET /api/steps HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  let received = '';
  // The reset that drops it may be reported even while it does not read.
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', function opened(chunk) {
      received += String(chunk);
      if (!received.includes(': connected\n\n')) return;
      socket.off('data', opened);
      socket.off('error', reject);
      socket.pause();
      resolve();
    });
  });
  return socket;
}

interface ReadStep {
  id: string;
  seq: number;
  after: string;
  status: string;
  run?: { seq: number; state: string; status: string };
}

/** A client that reads everything, parsing `step` events as they arrive (and the others' names, in `events`). */
async function readingClient(port: number, path = '/api/steps', headers: Record<string, string> = {}) {
  const steps: ReadStep[] = [];
  const events: string[] = [];
  let wake: () => void = () => {};
  let ended = false;
  const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers }, resolve).on('error', reject).end();
  });
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    const taken = takeSseEvents(buffer + chunk);
    buffer = taken.rest;
    for (const { event, id, data } of taken.events) {
      if (event) events.push(event);
      if (event !== 'step') continue;
      const { seq, after, status, run } = JSON.parse(data!) as Omit<ReadStep, 'id'>;
      steps.push({ id: id!, seq, after, status, ...(run && { run }) });
    }
    wake();
  });
  response.on('close', () => {
    ended = true;
    wake();
  });
  return {
    steps,
    events,
    status: response.statusCode,
    get ended() {
      return ended;
    },
    async until(enough: () => boolean) {
      while (!enough()) {
        if (ended) throw new Error('the stream ended');
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    close: () => response.destroy(),
  };
}

/** The keep-alive timers the streams arm (by their delay), and whether each was let go. */
function keepAliveTimers() {
  const armed = new Set<unknown>();
  const setTimer = globalThis.setTimeout;
  const clearTimer = globalThis.clearTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
    const timer = setTimer(() => {
      armed.delete(timer);
      callback();
    }, ms);
    if (ms === KEEP_ALIVE_MS) armed.add(timer);
    return timer;
  }) as typeof setTimeout);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((timer: NodeJS.Timeout | undefined) => {
    armed.delete(timer);
    clearTimer(timer);
  }) as typeof clearTimeout);
  return {
    get pending() {
      return armed.size;
    },
  };
}

describe('the step stream under a client that does not read', () => {
  it('drops a client that never reads once its unsent steps pass the bound, says who and why, and keeps nothing of it', async () => {
    const timers = keepAliveTimers();
    const s = await stepServer();
    const stalled = await stalledClient(s.port);
    expect(s.streams.stats()).toEqual({ watchers: 1, unsentBytes: 0 });
    const dropped = s.nextLog();
    let isDropped = false;
    void dropped.then(() => (isDropped = true));
    let most = 0;
    // Far more than the bound plus what the sockets can hold; the loop ends at the drop.
    for (let i = 0; i < 400 && !isDropped; i++) {
      await s.commit(256 * 1024);
      const { unsentBytes } = s.streams.stats();
      expect(unsentBytes).toBeLessThanOrEqual(MAX_UNSENT_BYTES);
      most = Math.max(most, unsentBytes);
    }
    await dropped;
    // It was held back by its socket, not let through: the queue filled up to the bound first.
    expect(most).toBeGreaterThan(MAX_UNSENT_BYTES - 2 * 256 * 1024);
    expect(s.logs).toHaveLength(1);
    expect(s.logs[0]).toMatchObject({
      runId: '',
      level: 'warn',
      data: { client: `127.0.0.1:${stalled.localPort}`, maxUnsentBytes: MAX_UNSENT_BYTES },
    });
    expect(s.logs[0]!.message).toMatch(
      new RegExp(`dropped client 127\\.0\\.0\\.1:${stalled.localPort}, .* more than ${MAX_UNSENT_BYTES}$`),
    );
    expect(s.streams.stats()).toEqual({ watchers: 0, unsentBytes: 0 });
    expect(timers.pending).toBe(0);
    // Its connection is gone: reading what was left ends in the reset.
    stalled.resume();
    if (!stalled.destroyed) await new Promise((resolve) => stalled.once('close', resolve));
    await s.gone(0);
    // Steps after the drop go nowhere and hold nothing.
    await s.commit(256 * 1024);
    expect(s.streams.stats()).toEqual({ watchers: 0, unsentBytes: 0 });
  });

  it('gives a client that reads every step in order while a client beside it that never reads is dropped', async () => {
    const s = await stepServer();
    const reader = await readingClient(s.port);
    const stalled = await stalledClient(s.port);
    const dropped = s.nextLog();
    // 30 MB of steps, far past the bound. Each commit lets I/O run once, as events arriving over
    // HTTP do: a commit loop that never yields would starve every reader in this process.
    const count = 300;
    for (let i = 0; i < count; i++) {
      await s.commit(100 * 1024);
      await new Promise(setImmediate);
    }
    await dropped;
    expect(s.logs.map((entry) => entry.data?.client)).toEqual([`127.0.0.1:${stalled.localPort}`]);
    await reader.until(() => reader.steps.length >= count);
    expect(reader.steps.map((step) => step.id)).toEqual(Array.from({ length: count }, (_, i) => `${s.runId}:${i + 3}`));
    expect(reader.steps.map((step) => step.seq)).toEqual(Array.from({ length: count }, (_, i) => i + 3));
    expect(reader.steps.map((step) => step.after)).toEqual(
      Array.from({ length: count }, (_, i) => (i % 2 ? 'running' : 'recovering')),
    );
    expect(s.streams.stats()).toEqual({ watchers: 1, unsentBytes: 0 });
    stalled.destroy();
  });
});

describe('the step stream when a client goes', () => {
  it('lets go of its watcher and its keep-alive timer', async () => {
    const timers = keepAliveTimers();
    const s = await stepServer();
    const reader = await readingClient(s.port);
    await s.commit(10);
    await reader.until(() => reader.steps.length === 1);
    expect(s.streams.stats()).toEqual({ watchers: 1, unsentBytes: 0 });
    expect(timers.pending).toBe(1);
    reader.close();
    await s.gone(0);
    expect(s.streams.stats()).toEqual({ watchers: 0, unsentBytes: 0 });
    expect(timers.pending).toBe(0);
  });

  it('ends every open stream when the streams close', async () => {
    const timers = keepAliveTimers();
    const s = await stepServer();
    const reader = await readingClient(s.port);
    await s.commit(10);
    await reader.until(() => reader.steps.length === 1);
    s.streams.close();
    await reader.until(() => reader.ended);
    expect(reader.ended).toBe(true);
    expect(s.streams.stats()).toEqual({ watchers: 0, unsentBytes: 0 });
    expect(timers.pending).toBe(0);
  });
});

describe("the step stream's replay of what a client missed", () => {
  const seqs = (steps: ReadStep[]) => steps.map((step) => step.seq);

  it('sends the steps after ?since= from the store, then the live ones, the last replayed with the run as stored', async () => {
    const s = await stepServer();
    await s.commit(0); // seq 3, recovering
    await s.commit(0); // seq 4, running
    const reader = await readingClient(s.port, `/api/steps?run=${s.runId}&since=1`);
    await reader.until(() => reader.steps.length === 3);
    expect(reader.steps.map(({ id, seq, after }) => ({ id, seq, after }))).toEqual([
      { id: `${s.runId}:2`, seq: 2, after: 'running' },
      { id: `${s.runId}:3`, seq: 3, after: 'recovering' },
      { id: `${s.runId}:4`, seq: 4, after: 'running' },
    ]);
    expect(reader.steps.map((step) => step.run?.seq)).toEqual([undefined, undefined, 4]);
    expect(reader.steps[2]!.run).toMatchObject({ state: 'running', status: 'active' });
    await s.commit(0);
    await reader.until(() => reader.steps.length === 4);
    expect(reader.steps[3]).toMatchObject({ id: `${s.runId}:5`, seq: 5, after: 'recovering', run: { seq: 5 } });
    expect(reader.events).not.toContain('resync');
  });

  it('takes where to go on from Last-Event-ID, as EventSource sends it on a reconnect; ?run= alone is live only', async () => {
    const s = await stepServer();
    await s.commit(0);
    const resumed = await readingClient(s.port, `/api/steps?run=${s.runId}`, { 'last-event-id': `${s.runId}:2` });
    const live = await readingClient(s.port, `/api/steps?run=${s.runId}`);
    await resumed.until(() => resumed.steps.length === 1);
    expect(seqs(resumed.steps)).toEqual([3]);
    // Another run's steps are not this stream's.
    const other = await s.runtime.start('execution');
    await s.runtime.dispatch(other.runId, { type: 'ENQUEUE' });
    await s.commit(0);
    await resumed.until(() => resumed.steps.length === 2);
    await live.until(() => live.steps.length === 1);
    expect(seqs(resumed.steps)).toEqual([3, 4]);
    expect(seqs(live.steps)).toEqual([4]);
  });

  it('neither loses nor repeats a step at the switch from the store to the live steps while steps commit', async () => {
    let s!: Awaited<ReturnType<typeof stepServer>>;
    // One step commits after the watcher subscribed and before the store is read (so it is both in
    // the store and queued), two after the read (queued only, and the run read after them is ahead of the trail).
    s = await stepServer(async (read) => {
      await s.commit(0);
      const trail = await read();
      await s.commit(0);
      await s.commit(0);
      return trail;
    });
    const reader = await readingClient(s.port, `/api/steps?run=${s.runId}&since=0`);
    await reader.until(() => reader.steps.length >= 5);
    for (let i = 0; i < 3; i++) await s.commit(0);
    await reader.until(() => reader.steps.at(-1)!.seq === 8);
    expect(seqs(reader.steps)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(reader.steps.map((step) => step.id)).toEqual(seqs(reader.steps).map((seq) => `${s.runId}:${seq}`));
    // The trail's steps (seq 3 too: its live copy was skipped) carry no run, the run being read
    // past them; the live steps carry theirs.
    expect(reader.steps.map((step) => step.run?.seq)).toEqual([undefined, undefined, undefined, 4, 5, 6, 7, 8]);
  });

  it('tells a client to read again what it shows when it cannot replay: the stream of every run, or a seq past the store', async () => {
    const s = await stepServer();
    const every = await readingClient(s.port, '/api/steps', { 'last-event-id': `${s.runId}:1` });
    const ahead = await readingClient(s.port, `/api/steps?run=${s.runId}&since=9`);
    const otherRun = await readingClient(s.port, `/api/steps?run=${s.runId}`, { 'last-event-id': 'job-9:1' });
    const fresh = await readingClient(s.port, '/api/steps');
    await s.commit(0);
    for (const reader of [every, ahead, otherRun, fresh]) await reader.until(() => reader.steps.length === 1);
    expect(every.events).toEqual(['resync', 'step']);
    expect(ahead.events).toEqual(['resync', 'step']);
    expect(otherRun.events).toEqual(['resync', 'step']);
    expect(fresh.events).toEqual(['step']);
    // A bad seq, or a seq without the run, is refused before any stream opens.
    for (const path of ['/api/steps?since=1', `/api/steps?run=${s.runId}&since=x`]) {
      const refused = await readingClient(s.port, path);
      expect(refused.status).toBe(500); // the bare app here has no error handler; serve's answers 422
      refused.close();
    }
  });
});
