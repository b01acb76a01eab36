/**
 * `statewright mcp`'s step stream client while serve is away (src/mcp/serve-away.ts), against a
 * stand-in HTTP server that fails it each way a stopping, crashing or starting serve does: a 503
 * while it restores its runs, a stream cut mid-way, a stream it ends, a refused connection, then a
 * serve on another port found from its file beside the store. Every step arrives once, in order,
 * resumed from the last seq seen; a 4xx is reported. And the approve tool, with no serve at all,
 * denies once the approval's timeout has passed: never an error.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { approvalTools } from '../../src/mcp/approval-tools.js';
import { serverAccess } from '../../src/mcp/server-access.js';
import { serverLocation } from '../../src/mcp/serve-away.js';
import { watchSteps } from '../../src/mcp/step-stream-client.js';
import { writeServerFile } from '../../src/serve/server-file.js';
import { testDir } from '../stores/temp-dir.js';
import { textOf } from './mcp-client.js';
import { until } from '../support/until.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function standIn(handler: Handler) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  onTestFinished(close);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

const run = (seq: number) => ({ runId: 'r', machine: 'session', seq });
const step = (seq: number) => `event: step\ndata: ${JSON.stringify({ seq, run: run(seq) })}\n\n`;
const sinceOf = (req: IncomingMessage) => Number(new URL(req.url!, 'http://x').searchParams.get('since'));

it('reopens the step stream from the last seq through a 503, a cut, an end and a refused connection, at the serve found next', async () => {
  const dir = testDir('serve-away');
  const serverDir = join(dir, 'state.db.serve');
  const asked: number[] = [];
  let opened = 0;
  let open: ServerResponse | undefined;
  const first = await standIn((req, res) => {
    if (!req.url!.startsWith('/api/steps')) {
      // Starting: what serve answers while it restores its runs.
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Starting","message":"try again"}');
      return;
    }
    asked.push(sinceOf(req));
    opened += 1;
    if (opened === 1) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Starting","message":"try again"}');
    } else if (opened === 2) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(step(1));
      open = res;
    } else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(step(2));
    }
  });
  const second = await standIn((req, res) => {
    asked.push(sinceOf(req));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(step(3));
  });
  const seen: number[] = [];
  const errors: Error[] = [];
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  const got = (n: number) =>
    new Promise<void>((resolve) => (seen.length >= n ? resolve() : waiting.push({ n, resolve })));
  const stop = watchSteps(
    serverLocation({ url: first.url }, serverDir),
    'r',
    0,
    (r) => {
      seen.push(r.seq);
      for (const w of waiting.filter((w) => seen.length >= w.n)) w.resolve();
    },
    (error) => errors.push(error),
  );
  onTestFinished(stop);
  await got(1);
  // Cut mid-way, as a SIGKILL leaves it.
  open!.socket!.destroy();
  await got(2);
  // The first serve is gone (connections refused) and the next one's file is beside the store.
  await first.close();
  writeServerFile(serverDir, { hostId: 'next', url: second.url, token: undefined });
  await got(3);
  expect(seen).toEqual([1, 2, 3]);
  expect(asked.slice(0, 3)).toEqual([0, 0, 1]);
  expect(asked.at(-1)).toBe(2);
  expect(errors).toEqual([]);
});

it('opens a stream again at the serve found next when it says nothing, not even a keep-alive', async () => {
  const dir = testDir('serve-away-silent');
  const serverDir = join(dir, 'state.db.serve');
  // Open, then silent for good: a connection whose far end is gone without a word.
  let silentOpens = 0;
  const silent = await standIn((_req, res) => {
    silentOpens += 1;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
  });
  const next = await standIn((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(step(1));
  });
  const errors: Error[] = [];
  const heard = new Promise<number>((resolve) => {
    const stop = watchSteps(
      serverLocation({ url: silent.url }, serverDir),
      'r',
      0,
      (r) => resolve(r.seq),
      (error) => errors.push(error),
      100,
    );
    onTestFinished(stop);
  });
  // Only once the silent stream was open is the next serve's file beside the store.
  await until('the silent stream to be open', () => silentOpens > 0);
  writeServerFile(serverDir, { hostId: 'next', url: next.url, token: undefined });
  expect(await heard).toBe(1);
  expect(errors).toEqual([]);
});

it('reports a refusal that stands (a 4xx), once', async () => {
  const server = await standIn((_req, res) =>
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"UnknownRunError","message":"no run r"}'),
  );
  const error = await new Promise<Error>((resolve) => {
    const stop = watchSteps(serverLocation({ url: server.url }), 'r', 0, () => {}, resolve);
    onTestFinished(stop);
  });
  expect(error.name).toBe('UnknownRunError');
});

it('denies, as the timeout would, an approval whose timeout passed while no serve answered', async () => {
  const server = await standIn(() => {});
  await server.close();
  const { tools } = approvalTools(serverAccess(serverLocation({ url: server.url })), 's-1', 200);
  const [tool] = await tools();
  const result = await tool!.call(
    { tool_name: 'Bash', input: { command: 'npm test' }, tool_use_id: 'toolu_1' },
    new AbortController().signal,
  );
  expect(JSON.parse(textOf(result))).toEqual({
    behavior: 'deny',
    message:
      'Nobody decided on Bash within the approval timeout of statewright session s-1, while the statewright serve hosting it was away: denied.',
  });
}, 20_000);
