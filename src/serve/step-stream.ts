/**
 * `GET /api/steps`: every committed step of every run as a server-sent event, told after the
 * commit like every runtime listener (`event: step`, `id: <runId>:<seq>`, `data: {...}`, the run as
 * the API shows it after the step in `data.run`). A comment line every 15 s keeps proxies from
 * closing an idle stream. Closing the stream set ends every open stream, so a stopping server is
 * not held open by its watchers.
 *
 * `?run=<id>` streams one run's steps, and replays what its client missed: with `?since=<seq>` or
 * `Last-Event-ID` (what EventSource sends when it reconnects), the run's steps committed after that
 * seq are read from the store and sent first, then the live ones. The watcher subscribes before it
 * reads the store and skips the live steps the read already covered, so nothing is lost or sent
 * twice at the switch. The seq is the run's own order, kept by every store across restarts; the
 * store keeps no order across runs, so the stream of every run cannot replay: a client that comes
 * back to it with `Last-Event-ID` gets `event: resync` first, to read again what it shows. So does
 * a run's client whose seq is past the store's (a store that lost it: the memory store of a
 * restarted server).
 *
 * A client that reads slower than steps commit is dropped once its unsent steps pass
 * `MAX_UNSENT_BYTES`: its stream ends, its connection is reset and the runtime's log channel says
 * who and why. Without that, a client that never reads would hold every step from then on.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { CommittedStep, Runtime } from '../runtime/index.js';
import { toRunSnapshot } from '../runtime/run-snapshot.js';
import type { EventRecord, StoredRun } from '../stores/store.js';
import { runJson, type RunJson } from './run-json.js';
import { QueryParameterError } from './serve-errors.js';
import { KEEP_ALIVE_MS } from './step-stream-keep-alive.js';

/**
 * The most a client may have unsent (queued for it and not yet taken by its socket) before it is
 * dropped: four of the largest steps the runtime accepts by default (an event of 1 MiB), so a
 * burst of big steps does not drop a reader who keeps up. A step's bytes are shared by every
 * watcher, so all slow clients together hold about this much, not this much each. Past it, each
 * client's socket and the stream machinery hold only a few more steps: @hono/node-server reads
 * the next chunk only once the socket has drained, and hono's `stream.write` waits for that read.
 */
export const MAX_UNSENT_BYTES = 4 * 1024 * 1024;

/** What each `step` event carries. */
export interface StepJson {
  readonly runId: string;
  readonly machine: string;
  readonly seq: number;
  readonly event?: CommittedStep['event'];
  readonly before?: string;
  readonly after: string;
  readonly status: string;
  readonly at: number;
  /**
   * The run after this step, as `GET /api/runs/:id` shows it: on every live step, and on the
   * replayed step that brought the run to the seq the store holds it at (earlier replayed steps
   * are read from the audit trail, which keeps no copy of the run).
   */
  readonly run?: RunJson;
}

export function stepJson(step: CommittedStep): StepJson {
  return {
    runId: step.runId,
    machine: step.machine,
    seq: step.seq,
    ...(step.event && { event: step.event }),
    ...(step.before !== undefined && { before: step.before }),
    after: step.after,
    status: step.snapshot.status,
    at: step.snapshot.updatedAt,
    run: runJson(step.snapshot),
  };
}

/** A step of the audit trail, replayed: `run` is the run as stored when this step is the one it rests at. */
export function replayedStepJson(record: EventRecord, run: StoredRun): StepJson {
  const current = run.seq === record.seq;
  return {
    runId: record.runId,
    machine: run.machine,
    seq: record.seq,
    event: record.event,
    before: record.before,
    after: record.after,
    // A step the run moved on from left it active: a run that ended takes no more steps.
    status: current ? run.status : 'active',
    at: record.at,
    ...(current && { run: runJson(toRunSnapshot(run)) }),
  };
}

/** A step's SSE id: the run id (URI-encoded, so it holds no line break) and the step's seq. */
export const stepId = (runId: string, seq: number) => `${encodeURIComponent(runId)}:${seq}`;

const stepEvent = (json: StepJson) =>
  encoder.encode(`event: step\ndata: ${JSON.stringify(json)}\nid: ${stepId(json.runId, json.seq)}\n\n`);

const resyncEvent = (reason: string) => `event: resync\ndata: ${JSON.stringify({ reason })}\n\n`;

/**
 * Where a run's client left off: `?since=<seq>`, else `Last-Event-ID` (`<runId>:<seq>`, or a bare
 * seq): the seq, or 'other' for an id of another stream (another run, or the stream of every run).
 */
function sinceOf(
  since: string | undefined,
  lastEventId: string | undefined,
  runId: string,
): number | 'other' | undefined {
  if (since !== undefined) {
    if (!/^\d{1,15}$/.test(since))
      throw new QueryParameterError(
        'since',
        since,
        'a seq of the run: a whole number, 0 or more',
        '?run=job-1&since=3',
      );
    return Number(since);
  }
  if (lastEventId === undefined || lastEventId === '') return undefined;
  const colon = lastEventId.lastIndexOf(':');
  const seq = lastEventId.slice(colon + 1);
  if (!/^\d{1,15}$/.test(seq)) return 'other';
  if (colon >= 0 && lastEventId.slice(0, colon) !== encodeURIComponent(runId)) return 'other';
  return Number(seq);
}

/** What the open streams hold right now. */
export interface StepStreamStats {
  readonly watchers: number;
  /** Bytes queued for all of them and not yet taken by their sockets. */
  readonly unsentBytes: number;
}

interface Watcher {
  readonly unsentBytes: number;
  /** The one run it watches (`?run=`); undefined: every run. */
  readonly runId: string | undefined;
  /** Queues one step's event, or drops the client if that puts it past the bound. */
  push(event: Uint8Array, seq: number): void;
  end(): void;
}

const encoder = new TextEncoder();

export class StepStreams {
  #runtime: Runtime;
  readonly #watchers = new Set<Watcher>();
  #unsubscribe: () => void;
  #closed = false;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
    this.#unsubscribe = this.#subscribe(runtime);
  }

  /**
   * Streams the steps of `runtime` from now on, in the place of the one before (serve's host
   * restarted on a new config): each client is told to read again (`event: resync`), since steps
   * committed while the runs changed hosts reached no one.
   */
  follow(runtime: Runtime, reason: string): void {
    this.#unsubscribe();
    this.#runtime = runtime;
    this.#unsubscribe = this.#subscribe(runtime);
    const event = encoder.encode(resyncEvent(reason));
    for (const watcher of this.#watchers) watcher.push(event, Number.POSITIVE_INFINITY);
  }

  #subscribe(runtime: Runtime): () => void {
    return runtime.subscribe((step) => {
      let event: Uint8Array | undefined;
      for (const watcher of this.#watchers) {
        if (watcher.runId !== undefined && watcher.runId !== step.runId) continue;
        // Encoded once for every watcher: their queues share the bytes.
        event ??= stepEvent(stepJson(step));
        watcher.push(event, step.seq);
      }
    });
  }

  stats(): StepStreamStats {
    let unsentBytes = 0;
    for (const watcher of this.#watchers) unsentBytes += watcher.unsentBytes;
    return { watchers: this.#watchers.size, unsentBytes };
  }

  /** The response for one watcher: open until the client goes away, falls too far behind, or the streams close. */
  respond(c: Context): Response {
    // Present when served by @hono/node-server: the socket, to name the client and to reset it.
    const bindings = c.env as Partial<HttpBindings> | undefined;
    const socket = bindings?.incoming?.socket;
    const address = socket?.remoteAddress?.includes(':') ? `[${socket.remoteAddress}]` : socket?.remoteAddress;
    const client = address ? `${address}:${socket!.remotePort}` : 'a client';
    const runId = c.req.query('run') || undefined;
    const since = runId
      ? sinceOf(c.req.query('since'), c.req.header('last-event-id'), runId)
      : c.req.query('since') !== undefined
        ? (() => {
            throw new QueryParameterError(
              'since',
              c.req.query('since')!,
              "replays one run's steps: give the run too",
              '?run=job-1&since=3',
            );
          })()
        : c.req.header('last-event-id')
          ? 'other'
          : undefined;
    return streamSSE(c, async (stream) => {
      if (this.#closed) return;
      // Each queued event with its step's seq, to skip the live steps a replay already sent.
      let queue: Array<{ event: Uint8Array; seq: number }> = [];
      // Counts the event being written until the stream takes it.
      let unsent = 0;
      let sent = 0;
      let wake: (() => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      let ended = false;
      // Lets go of everything the watcher holds at once, wherever its loop is waiting.
      const end = () => {
        if (ended) return;
        ended = true;
        this.#watchers.delete(watcher);
        queue = [];
        unsent = 0;
        clearTimeout(timer);
        wake?.();
      };
      const watcher: Watcher = {
        get unsentBytes() {
          return unsent;
        },
        runId,
        push: (event, seq) => {
          if (ended) return;
          // A client with nothing pending keeps up, even if one step is past the bound on its own.
          if (unsent === 0 || unsent + event.byteLength <= MAX_UNSENT_BYTES) {
            queue.push({ event, seq });
            unsent += event.byteLength;
            wake?.();
            return;
          }
          this.#runtime.log(
            '',
            'warn',
            `step stream: dropped client ${client}, which reads slower than steps commit: ${unsent + event.byteLength} bytes of steps unsent, more than ${MAX_UNSENT_BYTES}`,
            {
              client,
              unsentBytes: unsent + event.byteLength,
              maxUnsentBytes: MAX_UNSENT_BYTES,
              sentSteps: sent,
            },
          );
          end();
          // A write waiting on the socket fails, so the loop ends; the socket will not drain, so
          // it is reset rather than closed: the kernel lets go of what it still holds for it.
          stream.abort();
          if (socket && !socket.destroyed) socket.resetAndDestroy();
        },
        end,
      };
      // Subscribed before the store is read: a step committed meanwhile waits in the queue.
      this.#watchers.add(watcher);
      stream.onAbort(end);
      // The last seq the client has (of the run watched): live steps up to it are skipped.
      let covered = -1;
      try {
        // Sent at once, so a client knows the stream is open before any step arrives.
        await stream.write(': connected\n\n');
        if (since === 'other') await stream.write(resyncEvent('the stream cannot replay the steps missed since'));
        else if (since !== undefined && runId !== undefined) {
          // The trail first, then the row: a step the trail misses is committed after it was read, so it is queued.
          const trail = await this.#runtime.store.history(runId);
          const run = await this.#runtime.store.load(runId);
          covered = since;
          if (!run || since > run.seq) {
            if (run) covered = run.seq;
            await stream.write(
              resyncEvent(run ? `the store holds the run at seq ${run.seq}` : 'the store holds no such run'),
            );
          }
          for (const record of trail) {
            if (ended || !run) break;
            if (record.seq <= covered) continue;
            await stream.write(stepEvent(replayedStepJson(record, run)));
            covered = record.seq;
            sent++;
          }
        }
        while (!ended) {
          const next = queue.shift();
          if (next) {
            const { event, seq } = next;
            if (seq > covered) await stream.write(event);
            if (ended) break;
            unsent -= event.byteLength;
            if (seq > covered) sent++;
            continue;
          }
          const timedOut = await new Promise<boolean>((resolve) => {
            wake = () => resolve(false);
            timer = setTimeout(() => resolve(true), KEEP_ALIVE_MS);
          });
          clearTimeout(timer);
          wake = undefined;
          if (timedOut && !ended) await stream.write(': keep-alive\n\n');
        }
      } finally {
        end();
      }
    });
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const watcher of this.#watchers) watcher.end();
  }
}
