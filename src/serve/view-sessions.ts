/**
 * The live view's per-tab credentials. The view's URL carries serve's token in its fragment
 * (`/#token=...`, see view-url.ts), which no browser sends to any server; the page's script trades
 * it once (`POST /api/view-session`, the token as `Authorization: Bearer`) for a credential of its
 * own, sends that as `Authorization: View <credential>` on every call, and trades it for a fresh
 * one (the same route, with the credential) while the page is open. Nothing is a cookie, so no
 * other server on 127.0.0.1 (cookies ignore ports) ever receives it.
 *
 * A credential lapses `VIEW_SESSION_MS` after it was issued. It is signed, not stored: an HMAC of its
 * expiry and a nonce, keyed by the token, so any serve started with the same token (a restart with
 * `--token`, the next host after a hand-over) takes it, and one with another token does not.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a credential lives. The view trades its own for a fresh one every `VIEW_SESSION_MS / 6`. */
export const VIEW_SESSION_MS = 30 * 60_000;

export class ViewSessions {
  readonly #key: Buffer;
  readonly #lifetimeMs: number;
  readonly #now: () => number;

  constructor(token: string, options: { lifetimeMs?: number; now?: () => number } = {}) {
    // A key of its own, derived from the token: a credential is never a MAC anything else would make with the token.
    this.#key = createHmac('sha256', token).update('statewright live view credential').digest();
    this.#lifetimeMs = options.lifetimeMs ?? VIEW_SESSION_MS;
    this.#now = options.now ?? Date.now;
  }

  /** A new credential (`<expiry>.<nonce>.<mac>`, URL-safe) and how long it lives. */
  issue(): { credential: string; lifetimeMs: number } {
    const payload = `${(this.#now() + this.#lifetimeMs).toString(36)}.${randomBytes(12).toString('base64url')}`;
    return { credential: `${payload}.${this.#mac(payload)}`, lifetimeMs: this.#lifetimeMs };
  }

  /** Whether `credential` is one this token signed and it has not lapsed. */
  verify(credential: string): boolean {
    const cut = credential.lastIndexOf('.');
    if (cut < 0) return false;
    const payload = credential.slice(0, cut);
    const sent = Buffer.from(credential.slice(cut + 1), 'base64url');
    const expected = Buffer.from(this.#mac(payload), 'base64url');
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) return false;
    const expiresAt = Number.parseInt(payload.split('.')[0]!, 36);
    return Number.isFinite(expiresAt) && expiresAt > this.#now();
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}
