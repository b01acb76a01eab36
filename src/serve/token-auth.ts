/**
 * The token check in front of every route. A client shows the token one of three ways:
 * - `Authorization: Bearer <token>`: the CLI, curl, any program;
 * - the view's cookie, which the page opened as `/?token=...` sets (HttpOnly, so no script reads it;
 *   SameSite=Strict, so no other site's page sends it);
 * - `?token=` on the view's page and on the step stream only (EventSource cannot set headers): a
 *   token in the URL of a request that changes something would end up in logs and histories.
 * Compared in constant time over SHA-256 digests (equal lengths, so `timingSafeEqual` applies).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { bearerToken, tokenMatcher } from '../secret-token.js';
import { UnauthorizedError } from './serve-errors.js';

/** The view's cookie, per port: cookies ignore ports, and two serves on one machine must not share one. */
export const tokenCookieName = (port: number) => `statewright-token-${port}`;

/** A request for the view's page itself (not its assets, not the API): what the printed URL opens. */
export function isViewPage(c: Context): boolean {
  const { method, path } = c.req;
  return (
    (method === 'GET' || method === 'HEAD') &&
    !path.startsWith('/api/') &&
    !/\.[^/]*$/.test(path.replace(/\/index\.html$/, '/'))
  );
}

const takesQueryToken = (c: Context) => isViewPage(c) || (c.req.method === 'GET' && c.req.path === '/api/steps');

const NEEDS_TOKEN_PAGE = `<!doctype html><meta charset="utf-8"><title>statewright: token needed</title>
<h1>statewright serve needs its token</h1>
<p>Open the live view through the URL <code>statewright serve</code> printed when it started: it ends in
<code>?token=...</code>. The token is also in the server file beside the store, readable only by the user who started serve.</p>
`;

export function tokenAuth(token: string, cookieName: string): MiddlewareHandler {
  const matches = tokenMatcher(token);
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header) {
      const sent = bearerToken(header);
      if (sent === undefined || !matches(sent)) throw new UnauthorizedError(sent === undefined);
      return next();
    }
    const query = takesQueryToken(c) ? c.req.query('token') : undefined;
    if (query !== undefined) {
      if (!matches(query)) throw new UnauthorizedError(false);
      // The page sets the cookie that its assets, API calls and step stream then carry.
      if (isViewPage(c)) setCookie(c, cookieName, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return next();
    }
    const cookie = getCookie(c, cookieName);
    if (cookie !== undefined && matches(cookie)) return next();
    if (isViewPage(c)) return c.html(NEEDS_TOKEN_PAGE, 401);
    throw new UnauthorizedError(cookie === undefined);
  };
}
