/**
 * The metering proxy (src/actors/agent-wire/metering-proxy.ts) between a client and a stand-in
 * model API on loopback: only paths under its secret, answers passed through byte for byte as
 * they come, each call's usage read from both APIs' streams (and a gzipped one), the call after the
 * budget refused in the API's shape, an unreachable upstream and a 5xx reported with their cause.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import {
  MeteringProxy,
  type MeteredCall,
  type MeteringProxyOptions,
  type UpstreamFailure,
} from '../../src/actors/agent-wire/metering-proxy.js';

const sse = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
const PRICING = { input: 2, output: 10, cacheCreation: 2.5, cacheRead: 0.5 };

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function upstream(handle: (request: IncomingMessage, response: ServerResponse, body: string) => void) {
  const seen: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    seen.push({ url: request.url ?? '', headers: request.headers, body });
    handle(request, response, body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function proxyTo(url: string, options: Partial<MeteringProxyOptions> = {}) {
  const calls: MeteredCall[] = [];
  const failures: UpstreamFailure[] = [];
  const refused: string[] = [];
  const proxy = await MeteringProxy.start({
    api: 'messages',
    upstream: url,
    pricing: PRICING,
    listener: {
      onCall: (call) => calls.push(call),
      onUpstreamFailure: (failure) => failures.push(failure),
      onRefused: (message) => refused.push(message),
    },
    ...options,
  });
  closers.push(() => proxy.close());
  return { proxy, calls, failures, refused };
}

const post = (url: string, body = '{}', headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('the metering proxy', () => {
  test('passes a call under its secret to the upstream as it came, and refuses any other path', async () => {
    const api = await upstream((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const { proxy } = await proxyTo(`${api.url}/base`);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{48}$/);
    const answer = await post(`${proxy.url}/v1/messages?beta=true`, '{"model":"m"}', { 'x-api-key': 'sk-agent' });
    expect(answer.status).toBe(200);
    expect(api.seen[0]).toMatchObject({ url: '/base/v1/messages?beta=true', body: '{"model":"m"}' });
    expect(api.seen[0]!.headers['x-api-key']).toBe('sk-agent');
    const port = new URL(proxy.url).port;
    for (const path of ['/v1/messages', `/${'0'.repeat(48)}/v1/messages`, '/'])
      expect((await post(`http://127.0.0.1:${port}${path}`)).status).toBe(404);
    expect(api.seen).toHaveLength(1);
  });

  test('streams the answer through byte for byte, each event as it comes, and meters its usage', async () => {
    let next = () => {};
    const events = [
      sse({
        type: 'message_start',
        message: { usage: { input_tokens: 1000, cache_read_input_tokens: 200, output_tokens: 1 } },
      }),
      sse({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'héllo' } }),
      sse({ type: 'message_delta', usage: { output_tokens: 50 } }),
    ];
    const api = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(events[0]);
      // The rest only once the client has read the first event: nothing is held back on the way.
      next = () => res.end(events[1]! + events[2]!);
    });
    const { proxy, calls } = await proxyTo(api.url);
    const answer = await post(`${proxy.url}/v1/messages`);
    const reader = answer.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toBe(events[0]);
    next();
    const chunks = [Buffer.from(first.value!)];
    for (let part = await reader.read(); !part.done; part = await reader.read()) chunks.push(Buffer.from(part.value));
    expect(Buffer.concat(chunks).toString()).toBe(events.join(''));
    await expect.poll(() => calls.length).toBe(1);
    expect(calls[0]).toMatchObject({
      usage: { input_tokens: 1000, cache_read_input_tokens: 200, output_tokens: 50 },
      calls: 1,
    });
    expect(calls[0]!.costUsd).toBeCloseTo((1000 * 2 + 200 * 0.5 + 50 * 10) / 1e6, 12);
  });

  test("reads the Responses API's response.completed usage, also from a gzipped stream", async () => {
    const body = gzipSync(
      sse({ type: 'response.created', response: {} }) +
        sse({
          type: 'response.completed',
          response: { usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 100 }, output_tokens: 30 } },
        }),
    );
    const api = await upstream((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' }).end(body),
    );
    const { proxy, calls } = await proxyTo(api.url, { api: 'responses' });
    const answer = await fetch(`${proxy.url}/responses`, { method: 'POST', body: '{}' });
    await answer.arrayBuffer();
    await expect.poll(() => calls.length).toBe(1);
    expect(calls[0]!.usage).toEqual({
      input_tokens: 800,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 0,
      output_tokens: 30,
    });
  });

  test('refuses the call after the budget is spent, in the API’s error shape, without reaching the upstream', async () => {
    const api = await upstream((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(sse({ type: 'message_start', message: { usage: { input_tokens: 300_000 } } })),
    );
    const { proxy, calls, refused } = await proxyTo(api.url, { budgetUsd: 1, spentUsd: 0.5, calls: 3 });
    await (await post(`${proxy.url}/v1/messages`)).text();
    await expect.poll(() => calls.length).toBe(1);
    expect(calls[0]).toMatchObject({ calls: 4, spentUsd: 1.1 });
    const answer = await post(`${proxy.url}/v1/messages`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'statewright refused this model call: the budget of 1 USD is spent (1.1000 USD over 4 model calls)',
      },
    });
    expect(refused).toHaveLength(1);
    expect(api.seen).toHaveLength(1);
  });

  test('answers 502 with the cause for an unreachable upstream, passes a 5xx on, and counts both in a row', async () => {
    const dead = createServer().listen(0, '127.0.0.1');
    await once(dead, 'listening');
    const port = (dead.address() as AddressInfo).port;
    dead.close();
    await once(dead, 'close');
    const { proxy, failures } = await proxyTo(`http://127.0.0.1:${port}`, { api: 'responses' });
    const answer = await post(`${proxy.url}/responses`);
    expect(answer.status).toBe(502);
    expect(await answer.json()).toEqual({
      error: {
        type: 'server_error',
        message: `statewright's metering proxy could not reach the model API: connection refused to 127.0.0.1:${port}`,
        code: null,
      },
    });
    await post(`${proxy.url}/responses`);
    expect(failures).toEqual([
      { cause: `connection refused to 127.0.0.1:${port}`, failures: 1 },
      { cause: `connection refused to 127.0.0.1:${port}`, failures: 2 },
    ]);

    const api = await upstream((_req, res) =>
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"e":1}'),
    );
    const failing = await proxyTo(api.url);
    const passed = await post(`${failing.proxy.url}/v1/messages`);
    expect(passed.status).toBe(503);
    expect(await passed.text()).toBe('{"e":1}');
    expect(failing.failures).toEqual([{ cause: 'HTTP 503 from 127.0.0.1', failures: 1 }]);
  });
});
