/**
 * What the metering proxy (src/actors/agent-wire/) costs an agent's model calls (#41): calls made
 * straight to a stand-in model API (the baseline) and through the proxy, in alternating rounds
 * (`interleaved`), as a model call's latency (a small streamed answer with its usage, one call at a
 * time on a kept-alive connection, as a CLI makes them) and as bytes per second (one large streamed
 * answer). The stand-in runs in a child process of its own, so its work does not share this
 * process's event loop with the proxy's.
 *
 *   npx tsx bench/agent-wire.bench.ts [--rounds 7] [--calls 200] [--mib 64]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { MeteringProxy } from '../src/actors/agent-wire/metering-proxy.js';
import { interleaved, printFigures } from './measure.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { rounds: { type: 'string' }, calls: { type: 'string' }, mib: { type: 'string' } },
  strict: false,
});
const ROUNDS = Number(values.rounds ?? 7);
const CALLS = Number(values.calls ?? 200);
const MIB = Number(values.mib ?? 64);

/** The stand-in model API: `/v1/messages` a model call's stream; `/v1/big` MIB MiB of events. */
const UPSTREAM = `
const { createServer } = require('node:http');
const sse = (event, data) => 'event: ' + event + '\\ndata: ' + JSON.stringify(data) + '\\n\\n';
const call = [
  sse('message_start', { type: 'message_start', message: { id: 'm', usage: { input_tokens: 1000, output_tokens: 1 } } }),
  sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Working on it.' } }),
  sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
  sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 42 } }),
  sse('message_stop', { type: 'message_stop' }),
];
const chunk = Buffer.from(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(64 * 1024 - 120) } }));
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (req.url.endsWith('/v1/messages')) { for (const e of call) res.write(e); res.end(); return; }
    let left = ${MIB} * 16;
    const more = () => { while (left > 0) { left--; if (!res.write(chunk)) return res.once('drain', more); } res.end(); };
    more();
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.stdin.on('end', () => process.exit(0)).resume();
`;

const upstream = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['pipe', 'pipe', 'inherit'] });
const [portLine] = (await once(upstream.stdout!, 'data')) as [Buffer];
const upstreamUrl = `http://127.0.0.1:${Number(portLine.toString())}`;
let metered = 0;
const proxy = await MeteringProxy.start({
  api: 'messages',
  upstream: upstreamUrl,
  pricing: { input: 3, output: 15, cacheCreation: 3.75, cacheRead: 0.3 },
  listener: { onCall: () => void (metered += 1), onUpstreamFailure: () => undefined, onRefused: () => undefined },
});

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const body = JSON.stringify({
  model: 'bench',
  max_tokens: 100,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
});

/** One POST to `base + path`, its answer read to the end; resolves with the bytes read. */
function post(base: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'sk-bench',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.once('end', () => resolve(bytes));
      res.once('error', reject);
    });
    req.end(body);
  });
}

const calls = (base: string) => async () => {
  for (let i = 0; i < CALLS; i++) await post(base, '/v1/messages');
};
const [directCalls, proxiedCalls] = await interleaved(
  { name: 'straight to the model API', opsPerRound: CALLS, round: calls(upstreamUrl) },
  { name: 'through the metering proxy', opsPerRound: CALLS, round: calls(proxy.url) },
  ROUNDS,
);
const bytes = MIB * 1024 * 1024;
const stream = (base: string) => async () => {
  const read = await post(base, '/v1/big');
  // Each 64 KiB event is a few bytes short of 64 KiB: the count is right within 0.1%.
  if (read < bytes * 0.999) throw new Error(`read ${read} bytes of ${bytes}`);
};
const [directBytes, proxiedBytes] = await interleaved(
  { name: 'straight to the model API', opsPerRound: bytes, round: stream(upstreamUrl) },
  { name: 'through the metering proxy', opsPerRound: bytes, round: stream(proxy.url) },
  ROUNDS,
);

const ms = (rate: number) => `${(1000 / rate).toFixed(3)} ms`;
const mibs = (rate: number) => `${(rate / 1024 / 1024).toFixed(0)} MiB/s`;
printFigures(
  `A model call (${CALLS} calls a round, one at a time, kept alive; ${ROUNDS} rounds; the proxy metered ${metered})`,
  ['what', 'per call', 'calls/s vs straight'],
  [
    [directCalls.name, ms(directCalls.opsPerSecond), '1.00x'],
    [proxiedCalls.name, ms(proxiedCalls.opsPerSecond), `${proxiedCalls.ratio!.toFixed(2)}x`],
    ['added per call', `${(1000 / proxiedCalls.opsPerSecond - 1000 / directCalls.opsPerSecond).toFixed(3)} ms`, ''],
  ],
);
printFigures(
  `A streamed answer of ${MIB} MiB (64 KiB events; ${ROUNDS} rounds)`,
  ['what', 'bytes/s', 'vs straight'],
  [
    [directBytes.name, mibs(directBytes.opsPerSecond), '1.00x'],
    [proxiedBytes.name, mibs(proxiedBytes.opsPerSecond), `${proxiedBytes.ratio!.toFixed(2)}x`],
  ],
);

agent.destroy();
await proxy.close();
upstream.kill('SIGKILL');
