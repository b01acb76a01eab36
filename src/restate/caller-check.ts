/**
 * Who may call statewright's run objects through a Restate ingress. The ingress has no
 * authentication of its own and answers a CORS preflight from any origin, credentials allowed: any
 * web page the user visits could start a run (and its command) or read every run. So each handler a
 * client calls begins here, before it reads or writes anything:
 * - a call that carries an `Origin` (a web page's) is refused unless the worker allows that origin;
 *   so is one without a JSON body (the ingress also runs handlers on a GET, which a link, an image
 *   or a script tag of any page sends with no Origin), and one a browser marks as sent by a page
 *   (`Sec-Fetch-Site`) with no Origin (a DNS-rebound page's same-origin GET);
 * - with a token (the worker's), a call must show it as `Authorization: Bearer <token>`, compared
 *   in constant time.
 * Restate hands the handler the headers the ingress received (`ctx.request().headers`, lower-case
 * names, the same on every replay). A refusal is a `TerminalError` with the HTTP status the client
 * sees (401, 403): Restate does not retry it, and the ingress client turns it back into the typed
 * error. Handlers only other handlers call (a deadline's `fire`, the actor host's `perform`) are
 * registered `ingressPrivate` instead: the ingress refuses them whatever a call carries.
 */
import * as restate from '@restatedev/restate-sdk';
import { bearerToken, tokenMatcher } from '../secret-token.js';
import { REFUSED_STATUS, RestateOriginError, RestateUnauthorizedError } from './restate-errors.js';

export interface CallerPolicy {
  /** The worker's token, or false: no token asked (loopback only, see `startWorker`). */
  readonly token: string | false;
  /** Origins whose pages may call the run objects (the token is still asked). */
  readonly allowedOrigins?: readonly string[];
}

/** Throws the refusal of a call its headers do not allow. */
export type CallerCheck = (ctx: { request(): { readonly headers: ReadonlyMap<string, string> } }) => void;

export function callerCheck(policy: CallerPolicy): CallerCheck {
  const matches = policy.token === false ? undefined : tokenMatcher(policy.token);
  const origins = new Set(policy.allowedOrigins ?? []);
  return (ctx) => {
    const { headers } = ctx.request();
    const origin = headers.get('origin');
    const forbidden = (message: string) => new restate.TerminalError(message, { errorCode: REFUSED_STATUS.forbidden });
    if (origin !== undefined && !origins.has(origin)) throw forbidden(RestateOriginError.forOrigin(origin));
    if (!/^application\/json\b/i.test(headers.get('content-type') ?? '')) throw forbidden(RestateOriginError.NOT_JSON);
    const site = headers.get('sec-fetch-site');
    if (origin === undefined && site !== undefined && site !== 'none') throw forbidden(RestateOriginError.FROM_A_PAGE);
    if (!matches) return;
    const sent = bearerToken(headers.get('authorization'));
    if (sent === undefined || !matches(sent))
      throw new restate.TerminalError(
        sent === undefined ? RestateUnauthorizedError.MISSING : RestateUnauthorizedError.WRONG,
        { errorCode: REFUSED_STATUS.unauthorized },
      );
  };
}

/** `handler` with the check before it: what every handler a client calls is registered as. */
export function checked<C extends Parameters<CallerCheck>[0], A extends unknown[], R>(
  check: CallerCheck,
  handler: (ctx: C, ...args: A) => Promise<R>,
): (ctx: C, ...args: A) => Promise<R> {
  return async (ctx, ...args) => {
    check(ctx);
    return handler(ctx, ...args);
  };
}
