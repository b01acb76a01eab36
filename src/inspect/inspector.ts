/**
 * The Stately inspector bridge: statewright's own, in place of @statelyai/inspect's server, which
 * listens on every address, checks nothing and relays whatever any client sends to every other.
 * This one listens on 127.0.0.1 only, and a page or a websocket goes through serve's Host and
 * Origin checks (browser-guard.ts) and its token (secret-token.ts). A client is sent the inspection
 * events (the last 200, then each as it comes, in @statelyai/inspect's own shape, made by its
 * createInspector) once it has shown the token; nothing a client sends is ever sent to another.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import { WebSocket, WebSocketServer } from 'ws';
import type { InspectionEvent } from 'xstate';
import { ERROR_KINDS, StatewrightError } from '../errors.js';
import { bearerToken, tokenMatcher } from '../secret-token.js';
import { hostAndOriginCheck } from '../serve/browser-guard.js';
import { UnauthorizedError } from '../serve/serve-errors.js';
import { BRIDGE_HTML, BRIDGE_SCRIPT, bridgePolicy, TOKEN_MESSAGE } from './bridge-page.js';
import { inspectionJson } from './inspection-json.js';

export interface LiveInspector {
  /** Give this to `createRuntime({ inspect })`. */
  readonly inspect: (event: InspectionEvent) => void;
  /** Open this in a browser to watch the runs in the Stately inspector: the token is in its fragment. */
  readonly url: string;
  /** The token a client shows; undefined when started with `token: false`. */
  readonly token: string | undefined;
  stop(): void;
}

export interface InspectorOptions {
  /** Default 8080; 0 for any free port. */
  readonly port?: number;
  /** The token a client must show: a random one when undefined; false for none (the bridge is on 127.0.0.1 only). */
  readonly token?: string | false;
  /** Binds the server (serve's, which names a taken port as PortInUseError); default a plain listen. */
  readonly listen?: (server: Server, host: string, port: number) => Promise<number>;
}

/** The address the bridge listens on: this machine only. */
export const INSPECTOR_HOST = '127.0.0.1';
/** Events kept for a client that connects later, as @statelyai/inspect's server keeps. */
const KEPT_EVENTS = 200;
/** How long a websocket may stay without showing the token. */
const TOKEN_WAIT_MS = 10_000;

/** Serves the bridge on 127.0.0.1 and resolves once it listens. */
export async function startInspector(options: InspectorOptions = {}): Promise<LiveInspector> {
  const token = options.token === false ? undefined : (options.token ?? randomBytes(24).toString('base64url'));
  const matches = token === undefined ? () => true : tokenMatcher(token);
  const checkHeaders = hostAndOriginCheck({ boundHost: INSPECTOR_HOST });
  const kept: string[] = [];
  const viewers = new Set<WebSocket>();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 4096 });

  /** The request's Host and Origin, and a Bearer token if it shows one; a refusal as a typed error. */
  const refusal = (request: IncomingMessage): StatewrightError | undefined => {
    try {
      checkHeaders({
        host: request.headers.host,
        origin: request.headers.origin,
        'sec-fetch-site': one(request.headers['sec-fetch-site']),
        'sec-fetch-mode': one(request.headers['sec-fetch-mode']),
      });
    } catch (error) {
      if (error instanceof StatewrightError) return error;
      throw error;
    }
    const header = request.headers.authorization;
    if (header === undefined) return undefined;
    const sent = bearerToken(header);
    return sent !== undefined && matches(sent) ? undefined : new UnauthorizedError(sent === undefined);
  };

  const server = createServer((request, response) => {
    const refused = refusal(request);
    if (refused) return answerError(response, refused);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return void response.writeHead(405, { allow: 'GET, HEAD' }).end();
    const path = (request.url ?? '/').split('?')[0];
    const page =
      path === '/' || path === '/index.html' ? BRIDGE_HTML : path === '/bridge.js' ? BRIDGE_SCRIPT : undefined;
    if (page === undefined) return void response.writeHead(404).end();
    response
      .writeHead(200, {
        'content-type': path === '/bridge.js' ? 'text/javascript; charset=utf-8' : 'text/html; charset=utf-8',
        'content-security-policy': bridgePolicy(request.headers.host ?? INSPECTOR_HOST),
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      })
      .end(request.method === 'HEAD' ? undefined : page);
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refused = refusal(request);
    if (refused) return refuseUpgrade(socket, refused);
    // A Bearer header already passed the check; else the token is the first message.
    const shown = request.headers.authorization !== undefined || token === undefined;
    sockets.handleUpgrade(request, socket, head, (client) => {
      client.on('error', () => client.terminate());
      client.on('close', () => viewers.delete(client));
      if (shown) return admit(client);
      const timer = setTimeout(() => client.close(1008, 'no token'), TOKEN_WAIT_MS);
      client.on('message', (data: Buffer) => {
        if (viewers.has(client)) return; // A viewer only reads: what it sends goes nowhere.
        clearTimeout(timer);
        if (matches(sentToken(data) ?? '')) admit(client);
        else client.close(1008, 'wrong token');
      });
    });
  });

  const admit = (client: WebSocket) => {
    viewers.add(client);
    for (const text of kept) client.send(text);
  };

  const inspector = createInspector({
    send(event: StatelyInspectionEvent) {
      const text = inspectionJson(event);
      kept.push(text);
      if (kept.length > KEPT_EVENTS) kept.shift();
      for (const viewer of viewers) if (viewer.readyState === WebSocket.OPEN) viewer.send(text);
    },
  });

  const port = await (options.listen ?? plainListen)(server, INSPECTOR_HOST, options.port ?? 8080);
  return {
    inspect: (event) => inspector.inspect.next?.(event),
    url: `http://${INSPECTOR_HOST}:${port}/${token === undefined ? '' : `#token=${token}`}`,
    token,
    stop() {
      for (const viewer of viewers) viewer.terminate();
      sockets.close();
      server.close();
      server.closeAllConnections();
    },
  };
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The token of a `{"type":"statewright.token","token":...}` message, or undefined for anything else. */
function sentToken(data: Buffer): string | undefined {
  try {
    const message = JSON.parse(data.toString('utf8')) as { type?: unknown; token?: unknown };
    return message.type === TOKEN_MESSAGE && typeof message.token === 'string' ? message.token : undefined;
  } catch {
    return undefined;
  }
}

const errorBody = (error: StatewrightError) =>
  JSON.stringify({ error: error.name, kind: error.kind, message: error.message });

function answerError(response: ServerResponse, error: StatewrightError): void {
  response.writeHead(ERROR_KINDS[error.kind].status, { 'content-type': 'application/json' }).end(errorBody(error));
}

/** Answers a websocket upgrade that may not happen with the error, as plain HTTP, and hangs up. */
function refuseUpgrade(socket: Duplex, error: StatewrightError): void {
  const body = errorBody(error);
  socket.end(
    `HTTP/1.1 ${ERROR_KINDS[error.kind].status} Refused\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function plainListen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}
