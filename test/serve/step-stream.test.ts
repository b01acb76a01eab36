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
import { takeSseEvents } from '../support/sse-blocks.js';

const KEEP_ALIVE_MS = 15_000;
const CYCLE = ['RECOVER', 'START'] as const;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length) await cleanups.pop()!();
});

/** A runtime with one run in `running`, its step streams behind `GET /api/steps`, on a free port. */
async function stepServer() {
  const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles });
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

/** A client that reads everything, parsing `step` events as they arrive. */
async function readingClient(port: number) {
  const steps: Array<{ id: number; seq: number; after: string }> = [];
  let wake: () => void = () => {};
  let ended = false;
  const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/api/steps' }, resolve).on('error', reject).end();
  });
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    const { events, rest } = takeSseEvents(buffer + chunk);
    buffer = rest;
    for (const { event, id, data } of events) {
      if (event !== 'step') continue;
      const { seq, after } = JSON.parse(data!) as { seq: number; after: string };
      steps.push({ id: Number(id), seq, after });
    }
    wake();
  });
  response.on('close', () => {
    ended = true;
    wake();
  });
  return {
    steps,
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
    expect(reader.steps.map((step) => step.id)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
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
