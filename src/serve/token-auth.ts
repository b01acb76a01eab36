/**
 * The bearer token check in front of every route when the server has a token. Compared in constant
 * time over SHA-256 digests (equal lengths, so `timingSafeEqual` applies whatever was sent).
 * EventSource cannot set headers, so `?token=` is taken too (for `/api/steps` in a browser).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { UnauthorizedError } from './serve-errors.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function tokenAuth(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const header = c.req.header('authorization');
    const sent = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim() ?? c.req.query('token');
    if (sent === undefined || sent === '') throw new UnauthorizedError(true);
    if (!timingSafeEqual(digest(sent), expected)) throw new UnauthorizedError(false);
    await next();
  };
}
