/**
 * Calls to statewright's handlers through a Restate ingress (`POST /<service>/<key>/<handler>`).
 * Every call carries an idempotency key (the event's own, or one made for the call), so a call
 * whose answer was lost (a node killed mid-call, a connection reset) is sent again and Restate
 * answers it from the first invocation: an event is applied once, however often it is sent.
 */
import { randomUUID } from 'node:crypto';
import { RestateCallError, RestateUnreachableError } from './restate-errors.js';

export interface IngressOptions {
  /** How long a call keeps trying across lost connections and unavailable nodes (default 60 000 ms). */
  readonly patienceMs?: number;
}

/** Statuses that mean "not now": the ingress could not reach a partition or its deployment yet. */
const RETRIED = new Set([502, 503, 504]);

export class IngressClient {
  readonly urls: readonly string[];
  readonly #patienceMs: number;
  /** The ingress tried first: the last that answered. */
  #current = 0;

  /** `urls`: one ingress, or several nodes' ingresses of one cluster, tried in turn when one does not answer. */
  constructor(urls: string | readonly string[], options: IngressOptions = {}) {
    this.urls = (typeof urls === 'string' ? [urls] : urls).map((url) => url.replace(/\/+$/, ''));
    if (this.urls.length === 0) throw new RestateUnreachableError('(no ingress)', new Error('no ingress URL given'));
    this.#patienceMs = options.patienceMs ?? 60_000;
  }

  /** Calls `handler` of `service` for `key` and resolves with its JSON answer. */
  async call<T>(
    service: string,
    key: string,
    handler: string,
    body: unknown,
    idempotencyKey: string = randomUUID(),
  ): Promise<T> {
    const path = `/${encodeURIComponent(service)}/${encodeURIComponent(key)}/${handler}`;
    const until = Date.now() + this.#patienceMs;
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      const base = this.urls[this.#current]!;
      try {
        // Restate holds a call while the deployment is down: given up after the patience left, and
        // sent again with the same key, which attaches to the same invocation.
        const response = await fetch(base + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify(body ?? null),
          signal: AbortSignal.timeout(Math.max(1, until - Date.now())),
        });
        const text = await response.text();
        if (response.ok) return (text ? JSON.parse(text) : null) as T;
        if (!RETRIED.has(response.status)) throw new RestateCallError(base + path, response.status, detail(text));
        lastError = new RestateCallError(base + path, response.status, detail(text));
      } catch (error) {
        if (error instanceof RestateCallError && !RETRIED.has(error.status)) throw error;
        lastError = error;
      }
      if (Date.now() > until) throw new RestateUnreachableError(base + path, lastError);
      // Another node's ingress may answer while this one is down.
      this.#current = (this.#current + 1) % this.urls.length;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 1000)));
    }
  }
}

function detail(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {}
  return text.slice(0, 500) || 'no body';
}
