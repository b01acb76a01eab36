/**
 * The headers on every answer of serve, pages and API alike: no page of another origin may frame
 * the view (its approve and deny buttons under someone else's page: `frame-ancestors 'none'`, and
 * `X-Frame-Options` for older browsers), and the view runs only its own scripts (`script-src
 * 'self'`, no inline script). Inline styles stay allowed: the statechart diagram is an SVG the
 * server draws with a `<style>` of its own. Nothing is sent as a referrer, so no URL of the view
 * leaves it in a `Referer`.
 */
import type { MiddlewareHandler } from 'hono';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const VIEW_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Set before anything else answers, so refusals (a wrong Host, a missing token) carry them too. */
export function viewHeaders(): MiddlewareHandler {
  return async (c, next) => {
    for (const [name, value] of Object.entries(VIEW_HEADERS)) c.header(name, value);
    await next();
  };
}
