/**
 * Calls to statewright's handlers through a Restate ingress (`POST /<service>/<key>/<handler>`).
 * Every call carries an idempotency key (the event's own, or one made for the call), so a call
 * whose answer was lost (a node killed mid-call, a connection reset) is sent again and Restate
 * answers it from the first invocation: an event is applied once, however often it is sent.
 * Right after a worker registers, another node's ingress may not know its services yet and answers
 * 404 "service not found": that 404 is sent again too, with the same key, for a bounded time.
 * With the worker's token, every call shows it (`Authorization: Bearer`), and the idempotency key
 * Restate sees is tagged with a digest of it: Restate keeps a refused call's answer under its key
 * too, so a web page that guessed an event's key and sent it first (refused) must not make the
 * user's own call answer that refusal.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  REFUSED_STATUS,
  RestateCallError,
  RestateOriginError,
  RestateUnauthorizedError,
  RestateUnreachableError,
} from './restate-errors.js';

export interface IngressOptions {
  /** The worker's token (`statewright worker --token`), sent with every call. */
  readonly token?: string;
  /** How long a call keeps trying across lost connections and unavailable nodes (default 60 000 ms). */
  readonly patienceMs?: number;
  /**
   * How long a call answered 404 "service not found" is sent again (default 5 000 ms): the deployment
   * may be registered but not yet known to this node. A service still unknown after it is not registered.
   */
  readonly unregisteredMs?: number;
}

/** Statuses that mean "not now": the ingress could not reach a partition or its deployment yet. */
const RETRIED = new Set([502, 503, 504]);

/** The ingress's own 404 for a service it does not know (not a handler's answer, which a run not found never is: that is a value). */
function serviceNotFound(response: Response, text: string): boolean {
  return (
    response.status === 404 &&
    response.headers.get('x-restate-error-source') === 'ingress' &&
    /^service '[^']*' not found/i.test(detail(text))
  );
}

export class IngressClient {
  readonly urls: readonly string[];
  readonly #patienceMs: number;
  readonly #unregisteredMs: number;
  readonly #headers: Record<string, string>;
  readonly #keyTag: string;
  /** The ingress tried first: the last that answered. */
  #current = 0;

  /** `urls`: one ingress, or several nodes' ingresses of one cluster, tried in turn when one does not answer. */
  constructor(urls: string | readonly string[], options: IngressOptions = {}) {
    this.urls = (typeof urls === 'string' ? [urls] : urls).map((url) => url.replace(/\/+$/, ''));
    if (this.urls.length === 0) throw new RestateUnreachableError('(no ingress)', new Error('no ingress URL given'));
    this.#patienceMs = options.patienceMs ?? 60_000;
    this.#unregisteredMs = options.unregisteredMs ?? 5_000;
    const { token } = options;
    this.#headers = { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) };
    this.#keyTag = token
      ? `.${createHash('sha256').update(`statewright idempotency\0${token}`).digest('base64url').slice(0, 22)}`
      : '';
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
    const unregisteredUntil = Date.now() + Math.min(this.#unregisteredMs, this.#patienceMs);
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      const base = this.urls[this.#current]!;
      try {
        // Restate holds a call while the deployment is down: given up after the patience left, and
        // sent again with the same key, which attaches to the same invocation.
        const response = await fetch(base + path, {
          method: 'POST',
          headers: { ...this.#headers, 'idempotency-key': idempotencyKey + this.#keyTag },
          body: JSON.stringify(body ?? null),
          signal: AbortSignal.timeout(Math.max(1, until - Date.now())),
        });
        const text = await response.text();
        if (response.ok) return (text ? JSON.parse(text) : null) as T;
        const refusal =
          callerRefusal(response, text) ?? new RestateCallError(base + path, response.status, detail(text));
        // A service not found yet is tried again (on the next node too) until `unregisteredMs`, then refused.
        const notYet = serviceNotFound(response, text) && Date.now() < unregisteredUntil;
        if (!RETRIED.has(response.status) && !notYet) throw refusal;
        lastError = refusal;
      } catch (error) {
        if (error !== lastError && isRefusal(error)) throw error;
        lastError = error;
      }
      if (Date.now() > until) throw new RestateUnreachableError(base + path, lastError);
      // Another node's ingress may answer while this one is down.
      this.#current = (this.#current + 1) % this.urls.length;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 1000)));
    }
  }
}

/** A handler's refusal of the caller (caller-check.ts), as the typed error it stands for. */
function callerRefusal(response: Response, text: string): Error | undefined {
  if (response.headers.get('x-restate-error-source') !== 'invocation') return undefined;
  if (response.status === REFUSED_STATUS.unauthorized) return new RestateUnauthorizedError(detail(text));
  if (response.status === REFUSED_STATUS.forbidden) return new RestateOriginError(detail(text));
  return undefined;
}

function detail(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {}
  return text.slice(0, 500) || 'no body';
}

const isRefusal = (error: unknown): boolean =>
  error instanceof RestateCallError || error instanceof RestateUnauthorizedError || error instanceof RestateOriginError;
