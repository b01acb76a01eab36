/**
 * The token every `statewright serve` requires, as Jupyter does: random unless the user gives one,
 * because on a shared machine loopback is not private (any local user, and any web page the user
 * visits, can reach 127.0.0.1).
 */
import { randomBytes } from 'node:crypto';
import { isStrongToken, MIN_TOKEN_LENGTH } from '../secret-token.js';
import { WeakTokenError } from './serve-errors.js';

/** 32 URL-safe characters (192 random bits), so the token can sit in a URL as it is. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** `token` if it is long enough and fits in a header, a cookie and a URL unchanged; else `WeakTokenError`. */
export function checkToken(token: string): string {
  if (!isStrongToken(token)) throw new WeakTokenError(token.trim().length, MIN_TOKEN_LENGTH);
  return token;
}
