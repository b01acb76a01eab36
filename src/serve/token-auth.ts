/**
 * The token check in front of every route of the API. A client shows one of:
 * - `Authorization: Bearer <token>`: serve's token, as the CLI, curl or any program sends it;
 * - `Authorization: View <credential>`: the live view's per-tab credential (view-sessions.ts),
 *   which the view's script gets from `POST /api/view-session` for the token its URL carries in
 *   its fragment. No cookie and no token in a URL: a cookie reaches every server on the same
 *   host whatever its port, and a URL ends up in logs and histories.
 * The view's own files (its page, script and styles) hold nothing of the runs and are answered
 * without either, so the page can load, read its fragment and say how to open the view when it has
 * no token. Tokens are compared in constant time over SHA-256 digests (equal lengths, so
 * `timingSafeEqual` applies).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bearerToken, tokenMatcher } from '../secret-token.js';
import { UnauthorizedError, ViewCredentialError } from './serve-errors.js';
import type { ViewSessions } from './view-sessions.js';
import { viewUrl } from './view-url.js';

/** A request for the view's page itself (not its assets, not the API): what the printed URL opens. */
export function isViewPage(c: Context): boolean {
  const { method, path } = c.req;
  return (
    (method === 'GET' || method === 'HEAD') &&
    !path.startsWith('/api/') &&
    !/\.[^/]*$/.test(path.replace(/\/index\.html$/, '/'))
  );
}

/**
 * A browser's navigation (an address typed, a link followed, a page reloaded): it asks for HTML
 * (`Accept: text/html`) with GET or HEAD. A program's call (`fetch`, curl, the CLI, the view's own
 * calls) asks for JSON or anything, and keeps the JSON error.
 */
export function isNavigation(c: Context): boolean {
  const { method } = c.req;
  return (method === 'GET' || method === 'HEAD') && /(^|,)\s*text\/html\s*(;|,|$)/i.test(c.req.header('accept') ?? '');
}

/** What a stale or missing token shows a browser: how to get the view's URL again, not a JSON error. */
export const OPEN_THE_VIEW_PAGE = `<!doctype html><meta charset="utf-8"><title>statewright: open the live view</title>
<h1>Open the live view through its link</h1>
<p>This page needs the link <code>statewright serve</code> printed when it started
(<code>http://127.0.0.1:&lt;port&gt;/#token=...</code>). The link used here has no token, or an old one
(serve was started again since, or the view's session lapsed).</p>
<p>Run <code>npx statewright open</code> in the project's folder (or <code>npx statewright open --store &lt;store&gt;</code>):
it prints the link from the server file beside the store, readable only by the user who started serve;
<code>npx statewright open --browser</code> opens it.</p>
`;

export function tokenAuth(token: string, views: ViewSessions): MiddlewareHandler {
  const matches = tokenMatcher(token);
  return async (c, next) => {
    if (!c.req.path.startsWith('/api/')) {
      // An old printed URL (`/?token=`): sent on to the fragment form, where no server sees it again; never a cookie.
      const query = isViewPage(c) ? c.req.query('token') : undefined;
      if (query === undefined) return next();
      if (!matches(query)) return c.html(OPEN_THE_VIEW_PAGE, 401);
      return c.redirect(viewUrl('', token), 303);
    }
    const header = c.req.header('authorization');
    const view = header?.match(/^View\s+(\S+)\s*$/i)?.[1];
    if (view !== undefined) {
      if (!views.verify(view)) throw new ViewCredentialError();
      return next();
    }
    if (header) {
      const sent = bearerToken(header);
      if (sent === undefined || !matches(sent)) throw new UnauthorizedError(sent === undefined);
      return next();
    }
    throw new UnauthorizedError(true);
  };
}
