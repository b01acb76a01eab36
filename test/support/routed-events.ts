/**
 * Sending an event through the API of a cluster whose hosts come and go, as a client of several
 * hosts would: to the host that holds the run (the store says which), else to any host that is
 * up, retrying with the same idempotency key until one acknowledges it. A retry is always safe:
 * a key that was applied answers with the first result and applies nothing. Every acknowledgement
 * (a 2xx, given only after the commit) is recorded, so that the store can be checked against them.
 */
import type { Store } from '../../src/stores/store.js';
import type { ServeCluster } from './serve-cluster.js';
import { authOf } from './serve-process.js';

export interface Acknowledged {
  readonly runId: string;
  readonly type: string;
  readonly idempotencyKey: string;
  /** The seq the host answered with: the event's own place in the run's history. */
  readonly seq: number;
  readonly host: string;
}

/** What a host answered, other than an acknowledgement. */
export interface Answer {
  readonly host: string;
  readonly status: number;
  readonly error: string;
  readonly message: string;
}

/** The errors that say "not here, not now": another host holds the run, or this one is going away. */
const RETRIED = new Set([
  'RunHeldError',
  'LeaseLostError',
  'CommitConflictError',
  'RuntimeClosedError',
  'StoreUnavailableError',
  'CommitOutcomeUnknownError',
  'Starting',
]);

export class EventLedger {
  readonly acknowledged: Acknowledged[] = [];
  /** The answers retried, by error name (RunHeldError, a connection refused by a killed host...). */
  readonly retried = new Map<string, number>();

  retry(reason: string): void {
    this.retried.set(reason, (this.retried.get(reason) ?? 0) + 1);
  }
}

export interface RoutedEvent {
  readonly runId: string;
  readonly event: { type: string; [key: string]: unknown };
  readonly idempotencyKey: string;
  readonly actor?: string;
}

/** Whether a refusal with this error name ends the send (resolving with it) instead of failing the test. */
export type Accepts = (answer: Answer) => boolean;

/**
 * Sends until a host acknowledges (resolving with the acknowledgement) or refuses for good: an
 * answer `accepts` resolves with it, any other refusal rejects naming it. Fails after `timeoutMs`.
 */
export async function sendRouted(
  cluster: ServeCluster,
  store: Store,
  ledger: EventLedger,
  sent: RoutedEvent,
  options: { accepts?: Accepts; timeoutMs?: number } = {},
): Promise<Acknowledged | Answer> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last = 'nothing yet';
  for (;;) {
    const target = await route(cluster, store, sent.runId);
    if (target) {
      const answer = await post(target.url, sent).catch((error: Error) => ({
        status: 0,
        body: { error: connectionError(error), message: error.message },
      }));
      if (answer.status >= 200 && answer.status < 300) {
        const seq = (answer.body as { run: { seq: number } }).run.seq;
        const acknowledged: Acknowledged = {
          runId: sent.runId,
          type: sent.event.type,
          idempotencyKey: sent.idempotencyKey,
          seq,
          host: target.id,
        };
        ledger.acknowledged.push(acknowledged);
        return acknowledged;
      }
      const { error, message } = answer.body as { error: string; message: string };
      const refusal: Answer = { host: target.id, status: answer.status, error, message };
      if (answer.status !== 0 && !RETRIED.has(error) && answer.status !== 503) {
        if (options.accepts?.(refusal)) return refusal;
        throw new Error(
          `${sent.event.type} (${sent.idempotencyKey}) refused by '${target.id}' with ${answer.status} ${error}: ${message}`,
        );
      }
      ledger.retry(error);
      last = `${target.id} answered ${answer.status} ${error}: ${message}`;
    } else {
      last = 'no host is up';
    }
    if (Date.now() > deadline)
      throw new Error(`${sent.event.type} (${sent.idempotencyKey}) never acknowledged; last: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The host that holds the run, if it is up; else any host that is up (spread by run id). */
async function route(
  cluster: ServeCluster,
  store: Store,
  runId: string,
): Promise<{ id: string; url: string } | undefined> {
  const lease = (await store.load(runId))?.lease;
  const holder = lease?.state === 'held' ? lease.holder : undefined;
  const url = cluster.urlOf(holder);
  if (holder && url) return { id: holder, url };
  const up = cluster.up();
  if (!up.length) return undefined;
  const host = up[[...runId].reduce((sum, c) => sum + c.charCodeAt(0), Date.now()) % up.length]!;
  return { id: host.id, url: host.serve.url };
}

async function post(url: string, sent: RoutedEvent): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/api/runs/${encodeURIComponent(sent.runId)}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authOf(url) },
    body: JSON.stringify({
      event: sent.event,
      idempotencyKey: sent.idempotencyKey,
      ...(sent.actor && { actor: sent.actor }),
    }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** A request that got no answer: the host died under it, or is not listening any more. */
function connectionError(error: Error): string {
  const code = (error.cause as { code?: string } | undefined)?.code;
  return code ?? error.name;
}
