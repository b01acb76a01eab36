/**
 * The Stately inspector bridge as an attacker meets it: on 127.0.0.1 only; a websocket without the
 * token, with a wrong one, from another site's page or for another host name is refused and is sent
 * nothing; what a viewer sends reaches no other viewer. With the token, a client gets the committed
 * steps' inspection events in the shape the Stately inspector reads.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { lifecycles } from '../../machines/index.js';
import { startInspector, type LiveInspector } from '../../src/inspect/inspector.js';
import { inspectionJson } from '../../src/inspect/inspection-json.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { until } from '../support/until.js';

type Received = { type: string; sessionId?: string; snapshot?: { value?: unknown }; injected?: boolean };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function bridge(): Promise<{ inspector: LiveInspector; port: number; runtime: Runtime }> {
  const inspector = await startInspector({ port: 0 });
  cleanups.push(() => inspector.stop());
  const runtime = await createRuntime({ store: memoryStore(), machines: lifecycles, inspect: inspector.inspect });
  cleanups.push(() => runtime.close());
  return { inspector, port: Number(new URL(inspector.url).port), runtime };
}

/** A websocket client of the bridge, with what it was sent, how it ended, and how its upgrade was answered. */
function client(port: number, options: { token?: string; headers?: Record<string, string> } = {}) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/`, { headers: options.headers ?? {} });
  cleanups.push(() => socket.terminate());
  const state = {
    socket,
    received: [] as Received[],
    closed: undefined as number | undefined,
    refusedWith: undefined as number | undefined,
    opened: false,
  };
  socket.on('open', () => {
    state.opened = true;
    if (options.token !== undefined) socket.send(JSON.stringify({ type: 'statewright.token', token: options.token }));
  });
  socket.on('message', (data) => state.received.push(JSON.parse(data.toString('utf8'))));
  socket.on('close', (code) => (state.closed = code));
  socket.on('unexpected-response', (_request, response) => {
    state.refusedWith = response.statusCode;
    socket.terminate();
  });
  socket.on('error', () => {});
  return state;
}

const snapshotValues = (received: Received[]) =>
  received
    .filter((e) => e.type === '@xstate.snapshot' && e.snapshot?.value !== undefined)
    .map((e) => e.snapshot!.value);

async function runJob(runtime: Runtime, id: string): Promise<void> {
  await runtime.start('execution', { id });
  await runtime.dispatch(id, { type: 'ENQUEUE' });
  await runtime.dispatch(id, { type: 'APPROVE' }).catch(() => {}); // refused: never shown
  await runtime.dispatch(id, { type: 'START' });
  await runtime.dispatch(id, { type: 'SUCCEED' });
}

describe('the Stately inspector bridge', () => {
  it("sends a client that shows the token a run's snapshots, in order, committed steps only", async () => {
    const { inspector, port, runtime } = await bridge();
    expect(inspector.url).toBe(`http://127.0.0.1:${port}/#token=${inspector.token}`);
    const viewer = client(port, { token: inspector.token! });
    // From the bridge's own page: its Origin is the bridge's; a program sends the token as a header.
    const page = client(port, { token: inspector.token!, headers: { origin: `http://127.0.0.1:${port}` } });
    const program = client(port, { headers: { authorization: `Bearer ${inspector.token}` } });
    await until('the three clients connected', () => viewer.opened && page.opened && program.opened);
    await runJob(runtime, 'inspected-job');
    for (const each of [viewer, page, program]) {
      await until('four snapshots at the client', () => snapshotValues(each.received).length >= 4);
      expect(snapshotValues(each.received)).toEqual(['pending', 'queued', 'running', 'success']);
      expect(each.received.some((e) => e.type === '@xstate.event' && JSON.stringify(e).includes('APPROVE'))).toBe(
        false,
      );
    }
    // Stately's inspector reads its own event shape: a version and a session on each.
    expect(viewer.received.every((e) => typeof (e as { _version?: unknown })._version === 'string')).toBe(true);
  });

  it('refuses a client without the token, with a wrong one, from a foreign page or for another host, and sends it nothing', async () => {
    const { inspector, port, runtime } = await bridge();
    await runJob(runtime, 'secret-job'); // kept for clients that come later: none of these may get them
    const wrong = client(port, { token: 'x'.repeat(32) });
    const wrongHeader = client(port, { headers: { authorization: 'Bearer wrong-token-wrong-token' } });
    const foreign = client(port, { token: inspector.token!, headers: { origin: 'https://evil.example' } });
    const rebound = client(port, { token: inspector.token!, headers: { host: `evil.example:${port}` } });
    const crossSite = client(port, { token: inspector.token!, headers: { 'sec-fetch-site': 'cross-site' } });
    const silent = client(port);
    await until('the wrong token closed', () => wrong.closed !== undefined);
    await until('the upgrades refused', () => wrongHeader.refusedWith && foreign.refusedWith && rebound.refusedWith);
    await until('the cross-site upgrade refused', () => crossSite.refusedWith);
    expect([
      wrong.closed,
      wrongHeader.refusedWith,
      foreign.refusedWith,
      rebound.refusedWith,
      crossSite.refusedWith,
    ]).toEqual([1008, 401, 403, 421, 403]);
    // A client that shows the token after them gets the kept events: the others were sent none.
    const later = client(port, { token: inspector.token! });
    await until('the kept snapshots at a client with the token', () => snapshotValues(later.received).length >= 4);
    expect(silent.opened).toBe(true);
    expect([wrong, wrongHeader, foreign, rebound, crossSite, silent].map((c) => c.received.length)).toEqual([
      0, 0, 0, 0, 0, 0,
    ]);
  });

  it('does not pass what one viewer sends to another: a fake event stays with its sender', async () => {
    const { inspector, port, runtime } = await bridge();
    const liar = client(port, { token: inspector.token! });
    const victim = client(port, { token: inspector.token! });
    await until('both connected', () => liar.opened && victim.opened);
    const fake = { type: '@xstate.snapshot', sessionId: 'x:0', snapshot: { value: 'hacked' }, injected: true };
    liar.socket.send(JSON.stringify(fake));
    liar.socket.send(JSON.stringify({ ...fake, type: 'statewright.token', token: inspector.token }));
    // The pong comes after the bridge has handled both messages (one socket, in order)...
    const ponged = new Promise<void>((resolve) => liar.socket.on('pong', resolve));
    liar.socket.ping();
    await ponged;
    // ...and a relayed fake would reach the victim before the real steps that follow.
    await runJob(runtime, 'after-the-lie');
    await until('the real snapshots at the victim', () => snapshotValues(victim.received).length >= 4);
    expect(snapshotValues(victim.received)).toEqual(['pending', 'queued', 'running', 'success']);
    expect(victim.received.filter((e) => e.injected)).toEqual([]);
  });

  it('serves its page only for its own host name, framed by no one; listens on no other address', async () => {
    const { port } = await bridge();
    const get = (headers: Record<string, string>) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', headers }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const page = await get({});
    expect(page.status).toBe(200);
    expect(page.body).toContain('a page of stately.ai, on the internet');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect((await get({ host: `evil.example:${port}` })).status).toBe(421);
    expect((await get({ origin: 'https://evil.example' })).status).toBe(403);

    const outside = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && !address.internal && address.family === 'IPv4');
    const addresses = ['::1', ...(outside ? [outside.address] : [])];
    for (const address of addresses) {
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect({ host: address, port }, () => (socket.destroy(), resolve('connected')));
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect([address, outcome]).not.toEqual([address, 'connected']);
    }
  });
});

describe('inspection events as JSON', () => {
  it('writes functions by name, bigints as digits, cycles and depth past 10 as markers', () => {
    const context: Record<string, unknown> = { callback: function named() {}, big: 12n, shared: { a: 1 } };
    context.self = context;
    context.again = context.shared;
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 12; i++) deep = { deep };
    context.deep = deep;
    const json = JSON.parse(inspectionJson({ context }));
    expect(json.context).toMatchObject({
      callback: { type: 'named' },
      big: '12',
      self: '[Circular]',
      shared: { a: 1 },
      again: { a: 1 },
    });
    expect(JSON.stringify(json)).toContain('"[Object]"');
  });
});
