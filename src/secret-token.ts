/**
 * What every token check of statewright shares (serve's API, the Restate run objects): a token is
 * long and visible, a request shows it as `Authorization: Bearer <token>`, and it is compared in
 * constant time over SHA-256 digests (equal lengths, so `timingSafeEqual` applies whatever was sent).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Shorter tokens are refused: 16 characters of a random token are about 96 bits. */
export const MIN_TOKEN_LENGTH = 16;

/** Whether `token` is long enough and fits in a header, a cookie and a URL unchanged. */
export const isStrongToken = (token: string): boolean =>
  token.length >= MIN_TOKEN_LENGTH && /^[\x21-\x7e]+$/.test(token);

const digest = (text: string) => createHash('sha256').update(text).digest();

/** A test of a token sent against `token`, in constant time. */
export function tokenMatcher(token: string): (sent: string) => boolean {
  const expected = digest(token);
  return (sent) => timingSafeEqual(digest(sent), expected);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when the header is missing or of another scheme. */
export function bearerToken(header: string | undefined): string | undefined {
  return header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

/** Whether `host` (an address or name, IPv6 with or without brackets) is reachable only from this machine. */
export function isLoopback(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}
