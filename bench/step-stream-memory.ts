/**
 * The step stream under clients that never read (issue 29): `clients` raw sockets open
 * `GET /api/steps` and stop reading, then `steps` steps of `bytes` each are committed one by one
 * (letting I/O run between commits, as events arriving over HTTP do). Prints this process's RSS
 * before, at its peak during the commits, and after the clients have gone and the heap is
 * collected, with how many clients the server dropped. Not part of `npm run bench`: run it alone.
 *
 *   npx tsx --expose-gc bench/step-stream-memory.ts [--clients 5] [--steps 4000] [--bytes 102400] [--impl <module>]
 *
 * The store is SQLite in a temporary folder, so the steps' bytes live on disk, not in this
 * process: what grows is what the streams hold. `--impl` loads `StepStreams` from another module
 * (a copy of step-stream.ts from an older commit, in a folder whose node_modules has hono) to compare.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { lifecycles } from '../machines/index.js';
import { createRuntime } from '../src/runtime/index.js';
import type { StepStreams } from '../src/serve/step-stream.js';
import { sqliteStore } from '../src/stores/index.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '5' },
    steps: { type: 'string', default: '4000' },
    bytes: { type: 'string', default: '102400' },
    impl: { type: 'string' },
  },
});
const clients = Number(values.clients);
const steps = Number(values.steps);
const bytes = Number(values.bytes);
const impl = values.impl ? pathToFileURL(resolve(values.impl)).href : '../src/serve/step-stream.js';
const { StepStreams: Streams } = (await import(impl)) as {
  StepStreams: new (...args: ConstructorParameters<typeof StepStreams>) => StepStreams;
};

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const collect = () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc)
    throw new Error('Run with --expose-gc (npx tsx --expose-gc ...), so the figure after is what is still held.');
  for (let i = 0; i < 3; i++) gc();
};

const dir = mkdtempSync(join(tmpdir(), 'statewright-step-stream-'));
const runtime = await createRuntime({
  store: sqliteStore(join(dir, 'state.db')),
  machines: lifecycles,
  onLog: ({ level, message }) => level === 'warn' && dropped.push(message),
});
const dropped: string[] = [];
const streams = new Streams(runtime);
const closed: Array<Promise<unknown>> = [];
const app = new Hono<{ Bindings: HttpBindings }>().get('/api/steps', (c) => {
  closed.push(once(c.env.outgoing, 'close'));
  return streams.respond(c);
});
const server = createServer(getRequestListener(app.fetch));
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const port = (server.address() as AddressInfo).port;

const { runId } = await runtime.start('execution');
await runtime.dispatch(runId, { type: 'ENQUEUE' });
await runtime.dispatch(runId, { type: 'START' });
collect();
const before = process.memoryUsage.rss();

/** Sends the request, waits until the stream is open, then reads nothing more. */
async function stalledClient(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {}); // the reset of a dropped client
  socket.write('GET /api/steps HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  let received = '';
  await new Promise<void>((opened) =>
    socket.on('data', function read(chunk) {
      received += String(chunk);
      if (!received.includes(': connected\n\n')) return;
      socket.off('data', read);
      socket.pause();
      opened();
    }),
  );
  return socket;
}
const sockets = await Promise.all(Array.from({ length: clients }, stalledClient));

let peak = process.memoryUsage.rss();
const started = process.hrtime.bigint();
for (let i = 0; i < steps; i++) {
  // Each step its own bytes, as real events are: one shared string would cost nothing to hold.
  const pad = randomBytes(bytes / 2).toString('hex');
  await runtime.dispatch(runId, { type: i % 2 ? 'START' : 'RECOVER', pad } as never);
  await new Promise(setImmediate);
  peak = Math.max(peak, process.memoryUsage.rss());
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

for (const socket of sockets) socket.destroy();
await Promise.all(closed);
// A turn of the loop, for whatever the streams still do on a close to settle first.
await new Promise(setImmediate);
collect();
const after = process.memoryUsage();

console.log(
  `${clients} clients that never read, ${steps} steps of ${bytes} bytes (${seconds.toFixed(1)} s), ${values.impl ?? 'src/serve/step-stream.ts'}:`,
);
console.log(
  `  RSS before ${mib(before)}, peak ${mib(peak)}, after the clients went ${mib(after.rss)} (JS heap in use ${mib(after.heapUsed)})`,
);
console.log(`  dropped by the server: ${dropped.length} of ${clients}${dropped[0] ? ` (${dropped[0]})` : ''}`);

streams.close();
server.close();
await runtime.close();
rmSync(dir, { recursive: true, force: true });
