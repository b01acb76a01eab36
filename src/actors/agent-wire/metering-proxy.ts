/**
 * The metering proxy: a small HTTP server on 127.0.0.1 that an agent's model calls go through
 * (Claude's `ANTHROPIC_BASE_URL`, Codex's provider `base_url`: see agent-endpoint.ts), one per
 * agent. Each call is passed on to the real upstream as it came (method, path below the base,
 * headers with the agent's key, body streamed), and the answer is passed back the same way, each
 * chunk written as it arrives (server-sent events byte for byte, nothing buffered). A copy of the
 * answer is read on the side for the call's usage (call-usage.ts; a compressed answer is
 * decompressed for that copy only), and when the call ends its usage and cost are reported.
 *
 * It refuses, in the API's own error shape, a model call made once the spent cost has reached the
 * budget (400: the CLI reports it and stops). A call the upstream cannot take (connection refused,
 * a name that does not resolve, a TLS handshake refused) is answered 502 with the cause, and a
 * 5xx answer is passed on as it is; either is reported as an upstream failure, so the lifecycle
 * can end the agent with the cause once they repeat. A call that ends well reports its usage,
 * which tells the lifecycle the upstream is reachable again.
 *
 * It holds no secret of the agent's: headers pass through and are not kept. It listens on loopback
 * only, and takes only paths that begin with its own random secret (`/<secret>/...`), which only
 * the agent's command line or environment carries: another local user cannot use it as a relay.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { costAtPricing, tokensOfUsage, type AgentPricing, type AgentUsage } from '../../../machines/agent-pricing.js';
import { tokenMatcher } from '../../secret-token.js';
import { CallUsage, type WireApi } from './call-usage.js';
import { SseEvents } from './sse-events.js';
import { wireRefusal } from './wire-refusal.js';

/** One model call that went through, once its answer ended. */
export interface MeteredCall {
  /** Unique per call: the idempotency of its report. */
  id: string;
  usage: AgentUsage;
  costUsd: number;
  /** All calls metered by this proxy so far, and their cost (with what it was seeded with). */
  calls: number;
  spentUsd: number;
}

export interface UpstreamFailure {
  /** In words: `connection refused to api.example.com:443`, `HTTP 503 from api.example.com`. */
  cause: string;
  /** Failures in a row, this one included (a call that ends well starts the count again). */
  failures: number;
}

export interface MeteringProxyOptions {
  api: WireApi;
  /** The base URL the agent would have called: its path is put before the path below the secret. */
  upstream: string;
  /** The port to listen on (an adopted agent's, recorded); 0 or none: any free one. */
  port?: number;
  /** The path secret (an adopted agent's, recorded); none: a new one. */
  secret?: string;
  pricing?: AgentPricing;
  /** Calls made once `spentUsd` reaches this are refused. */
  budgetUsd?: number;
  /** What was spent before this proxy (calls metered before a restart). */
  spentUsd?: number;
  calls?: number;
  listener: WireListener;
}

/** Who hears of the calls (replaced when another supervisor adopts the agent in this process). */
export interface WireListener {
  onCall(call: MeteredCall): void;
  onUpstreamFailure(failure: UpstreamFailure): void;
  /** A call refused because the budget is spent. */
  onRefused(message: string): void;
}

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), and the host. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

function passedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  return out;
}

function causeOf(error: NodeJS.ErrnoException, target: URL): string {
  const where = target.port ? `${target.hostname}:${target.port}` : target.hostname;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `connection refused to ${where}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `could not resolve ${target.hostname} (${error.code})`;
    case 'ETIMEDOUT':
      return `connection to ${where} timed out`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${where} (${error.code})`;
    default:
      return `${error.code ?? 'error'} calling ${where}: ${error.message}`;
  }
}

function decompressor(encoding: string | undefined) {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** A recorded port still held (by a host handing over) is tried again this often, this many times. */
const PORT_RETRIES = 50;
const PORT_RETRY_MS = 100;

/** A whole JSON answer is read for its usage up to this size. */
const MAX_JSON_BODY = 8 * 1024 * 1024;

export class MeteringProxy {
  readonly #options: MeteringProxyOptions;
  readonly #server: Server;
  readonly #secret: string;
  readonly #isSecret: (sent: string) => boolean;
  readonly #upstream: URL;
  readonly #sockets = new Set<Socket>();
  #spentUsd: number;
  #calls: number;
  #failures = 0;
  #port = 0;
  listener: WireListener;

  private constructor(options: MeteringProxyOptions) {
    this.#options = options;
    this.listener = options.listener;
    this.#secret = options.secret ?? randomBytes(24).toString('hex');
    this.#isSecret = tokenMatcher(this.#secret);
    this.#upstream = new URL(options.upstream);
    this.#spentUsd = options.spentUsd ?? 0;
    this.#calls = options.calls ?? 0;
    this.#server = createServer((request, response) => this.#handle(request, response));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /**
   * Listens on 127.0.0.1: the given port (a recorded one, which a host handing over may still hold
   * for a moment: tried again for a few seconds), else any free one.
   */
  static async start(options: MeteringProxyOptions): Promise<MeteringProxy> {
    const proxy = new MeteringProxy(options);
    for (let attempt = 0; ; attempt++) {
      try {
        await proxy.#listen(options.port ?? 0);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !options.port || attempt >= PORT_RETRIES)
          throw error;
        await new Promise((resolve) => setTimeout(resolve, PORT_RETRY_MS));
      }
    }
    proxy.#port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  async #listen(port: number): Promise<void> {
    const listening = once(this.#server, 'listening');
    const failed = once(this.#server, 'error');
    this.#server.listen(port, '127.0.0.1');
    await Promise.race([listening, failed.then(([error]) => Promise.reject(error as Error))]);
  }

  get port(): number {
    return this.#port;
  }

  get secret(): string {
    return this.#secret;
  }

  /** The base URL the agent is given in place of the upstream's. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/${this.#secret}`;
  }

  get spentUsd(): number {
    return this.#spentUsd;
  }

  get calls(): number {
    return this.#calls;
  }

  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = once(this.#server, 'close');
    this.#server.close();
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const url = request.url ?? '/';
    const slash = url.indexOf('/', 1);
    const sent = slash < 0 ? url.slice(1) : url.slice(1, slash);
    if (!this.#isSecret(sent)) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      request.resume();
      return;
    }
    const rest = slash < 0 ? '/' : url.slice(slash);
    const { budgetUsd } = this.#options;
    if (budgetUsd !== undefined && this.#spentUsd >= budgetUsd) {
      const message =
        `statewright refused this model call: the budget of ${budgetUsd} USD is spent ` +
        `(${this.#spentUsd.toFixed(4)} USD over ${this.#calls} model calls)`;
      this.listener.onRefused(message);
      this.#answerError(response, 400, message);
      request.resume();
      return;
    }
    this.#forward(request, response, rest);
  }

  #answerError(response: ServerResponse, status: number, message: string): void {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify(wireRefusal(this.#options.api, status, message)));
  }

  #forward(request: IncomingMessage, response: ServerResponse, rest: string): void {
    const base = this.#upstream;
    const target = new URL(base.href.replace(/\/$/, '') + rest);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(target, { method: request.method, headers: passedHeaders(request.headers) });
    let answered = false;
    let connected = false;
    outgoing.on('socket', (socket: Socket) => {
      // A TLS upstream has taken the call once its handshake is done, a plain one once connected.
      if (!socket.connecting) connected = true;
      else socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => (connected = true));
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      // Cut once the upstream took the call (a reset, a stream cut midway): the agent sees the same
      // cut and reconnects, as it would without us. The upstream is there; it is not a failure here.
      if (answered || connected) {
        response.destroy();
        return;
      }
      answered = true;
      const cause = causeOf(error, target);
      this.#failed(cause);
      this.#answerError(response, 502, `statewright's metering proxy could not reach the model API: ${cause}`);
    });
    outgoing.on('response', (incoming) => {
      answered = true;
      this.#answer(incoming, response, target);
    });
    // The agent gave up on the call: so do we.
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    request.pipe(outgoing);
  }

  #answer(incoming: IncomingMessage, response: ServerResponse, target: URL): void {
    const status = incoming.statusCode ?? 502;
    response.writeHead(status, incoming.statusMessage ?? '', passedHeaders(incoming.headers));
    response.flushHeaders();
    if (status >= 500) {
      this.#failed(`HTTP ${status} from ${target.hostname}`);
      incoming.pipe(response);
      return;
    }
    const usage = new CallUsage(this.#options.api);
    const isStream = /text\/event-stream/i.test(String(incoming.headers['content-type'] ?? ''));
    const sse = new SseEvents();
    const json: Buffer[] = [];
    let jsonBytes = 0;
    const read = (chunk: Buffer) => {
      if (isStream) for (const data of sse.push(chunk, (block) => usage.wants(block))) usage.event(data);
      else if (jsonBytes < MAX_JSON_BODY) {
        json.push(chunk);
        jsonBytes += chunk.length;
      }
    };
    const inflate = decompressor(incoming.headers['content-encoding'] as string | undefined);
    if (inflate) {
      inflate.on('data', read);
      inflate.on('error', () => undefined);
    }
    incoming.on('data', (chunk: Buffer) => {
      // Passed on first, read after: the agent never waits for the meter.
      response.write(chunk);
      if (inflate) inflate.write(chunk);
      else read(chunk);
    });
    incoming.on('end', () => {
      response.end();
      const finish = () => {
        if (!isStream && status < 300) {
          try {
            usage.body(JSON.parse(Buffer.concat(json).toString('utf8')));
          } catch {
            // Not JSON: nothing to count.
          }
        }
        if (status < 300) this.#metered(usage.usage);
      };
      if (inflate) {
        inflate.once('end', finish);
        inflate.end();
      } else finish();
    });
    incoming.on('error', () => response.destroy());
  }

  /** A call that ended well: the upstream answers; one that spent tokens is reported. */
  #metered(usage: AgentUsage | undefined): void {
    this.#failures = 0;
    if (!usage) return;
    const spent = usage;
    const costUsd = costAtPricing(tokensOfUsage(spent), this.#options.pricing);
    this.#calls += 1;
    this.#spentUsd += costUsd;
    this.listener.onCall({ id: randomUUID(), usage: spent, costUsd, calls: this.#calls, spentUsd: this.#spentUsd });
  }

  #failed(cause: string): void {
    this.#failures += 1;
    this.listener.onUpstreamFailure({ cause, failures: this.#failures });
  }
}
