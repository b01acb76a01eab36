/**
 * What keeps web pages out of a server that starts processes. A page the user visits can send
 * requests to 127.0.0.1 without asking anyone: "simple" cross-origin requests (a form post, a
 * `no-cors` fetch with a text body) go out with no preflight, and a page whose name is rebound to
 * 127.0.0.1 (DNS rebinding) is even same-origin with the server. So, before the token is looked at:
 * - the `Host` must name this server: its bound address, localhost, a loopback or (when bound to
 *   every interface) any IP address, or a name the user allowed; a rebound name is none of these;
 * - a request from a page (an `Origin`, or a `Sec-Fetch-Site` naming another site) must come from
 *   the server's own origin or one the user named with `--cors-origin`;
 * - a request that changes anything must be `application/json`, a type no page can send to another
 *   origin without a preflight, which only a named CORS origin is granted;
 * - the path must decode: a malformed percent-encoding is refused here, typed, not deep inside.
 */
import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import {
  ForeignOriginError,
  HostNotAllowedError,
  MalformedUrlError,
  UnsupportedMediaTypeError,
} from './serve-errors.js';

export interface BrowserGuardOptions {
  /** The address the server is bound to (`--host`). */
  readonly boundHost: string;
  /** More names the `Host` header may give (`--allowed-host`). */
  readonly allowedHosts?: readonly string[];
  /** Origins whose pages may call the API (`--cors-origin`), e.g. `http://localhost:5173`. */
  readonly corsOrigins?: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** The name in a `Host` header, lower case, without its port, brackets or a trailing dot. */
export function hostName(header: string): string {
  const name = header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.replace(/:\d*$/, '');
  return name.toLowerCase().replace(/\.$/, '');
}

const isLoopbackName = (name: string) => name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);

/** The headers the Host and Origin checks read. */
export interface RequestHeaders {
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly 'sec-fetch-site'?: string | undefined;
  readonly 'sec-fetch-mode'?: string | undefined;
}

/**
 * The Host and Origin checks alone, for any server (serve's API, the inspector bridge's page and
 * websocket): throws HostNotAllowedError or ForeignOriginError; returns whether the `Origin` is one
 * the user allowed with `--cors-origin` (the caller then answers with CORS headers).
 */
export function hostAndOriginCheck(options: BrowserGuardOptions): (headers: RequestHeaders) => { granted: boolean } {
  const bound = hostName(options.boundHost);
  const allowed = new Set((options.allowedHosts ?? []).map(hostName));
  const cors = new Set(options.corsOrigins ?? []);
  const hostAllowed = (name: string) =>
    isLoopbackName(name) || name === bound || allowed.has(name) || (WILDCARDS.has(bound) && isIP(name) !== 0);
  return (headers) => {
    const host = headers.host ?? '';
    if (!hostAllowed(hostName(host))) throw new HostNotAllowedError(host);
    const origin = headers.origin;
    const granted = origin !== undefined && cors.has(origin);
    if (origin !== undefined && !granted && origin !== `http://${host}` && origin !== `https://${host}`)
      throw new ForeignOriginError(origin);
    if (origin === undefined && fromAnotherSite(headers)) throw new ForeignOriginError('another site');
    return { granted };
  };
}

export function browserGuard(options: BrowserGuardOptions): MiddlewareHandler {
  const check = hostAndOriginCheck(options);
  return async (c, next) => {
    const origin = c.req.header('origin');
    const { granted } = check({
      host: c.req.header('host'),
      origin,
      'sec-fetch-site': c.req.header('sec-fetch-site'),
      'sec-fetch-mode': c.req.header('sec-fetch-mode'),
    });
    if (granted && origin !== undefined) {
      c.header('access-control-allow-origin', origin);
      c.header('vary', 'Origin');
    }
    if (c.req.method === 'OPTIONS') return preflight(c, granted);
    if (!SAFE_METHODS.has(c.req.method)) {
      const type = c.req.header('content-type');
      if ((type ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json')
        throw new UnsupportedMediaTypeError(type);
    }
    const path = new URL(c.req.url).pathname;
    try {
      decodeURIComponent(path);
    } catch {
      throw new MalformedUrlError(path);
    }
    return next();
  };
}

/**
 * A subresource a page of another site asked for (an image, a script) carries no `Origin`, but its
 * browser says where it came from. A link followed to the view (a navigation) is let through:
 * the page it opens still needs the token, and its calls come from its own origin.
 */
function fromAnotherSite(headers: RequestHeaders): boolean {
  const site = headers['sec-fetch-site'];
  return (site === 'cross-site' || site === 'same-site') && headers['sec-fetch-mode'] !== 'navigate';
}

/** The answer to a CORS preflight: granted to a named origin, else only what the server allows. */
function preflight(c: Context, granted: boolean): Response {
  c.header('allow', 'GET, HEAD, POST, OPTIONS');
  if (granted) {
    c.header('access-control-allow-methods', 'GET, HEAD, POST, OPTIONS');
    c.header('access-control-allow-headers', 'authorization, content-type');
    c.header('access-control-max-age', '600');
  }
  return c.body(null, 204);
}
