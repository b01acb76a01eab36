/**
 * `restateRuntime({ ingress, admin })`: a client with the `Runtime` shape over runs hosted on
 * Restate. Calls are checked as the runtime checks them (run ids, events, options, payload sizes)
 * before anything is sent; each run's events are sent in the order given; every refusal comes back
 * as the typed error the runtime itself raises (wire-error.ts). Single runs are read from the run
 * objects' shared handlers; `list` and `subscribe` read the `run` state of every object through the
 * admin SQL query API, never the histories.
 */
import { randomUUID } from 'node:crypto';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { systemClock, type Clock } from '../actor-contract/clock.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import type { Explanation } from '../explain/index.js';
import {
  checkFilter,
  checkRunId,
  checkSendOptions,
  DEFAULT_PAYLOAD_LIMIT,
  ownedInput,
} from '../runtime/call-arguments.js';
import type { RuntimeError } from '../runtime/channels.js';
import { ownedEvent } from '../runtime/event-shape.js';
import type { Runtime } from '../runtime/runtime.js';
import { toRunSnapshot, type CommittedStep, type RunSnapshot } from '../runtime/run-snapshot.js';
import { matches, type EventRecord, type RunFilter, type StoredRun } from '../stores/store.js';
import { AdminClient, sqlString } from './admin-client.js';
import type { Answer } from './answer.js';
import { IngressClient, type IngressOptions } from './ingress-client.js';
import { HISTORY_MOST, HISTORY_PAGE, machineOfObject, runObjectName, RUN_DIRECTORY, STATE } from './object-names.js';
import { unpackPage, withRunId } from './history-entries.js';
import type { HistoryAnswer, HistoryRequest } from './run-object.js';
import { fromWire } from './wire-error.js';

export interface RestateRuntimeOptions<M extends Lifecycles = Lifecycles> extends IngressOptions {
  /** The ingress URL, or every node's ingress of a cluster (tried in turn when one does not answer). */
  readonly ingress: string | readonly string[];
  /** The admin API URL: `list` and `subscribe` query it. */
  readonly admin: string;
  /** The lifecycles the endpoint hosts, for the typed names (optional: the endpoint knows them). */
  readonly machines?: M;
  /** Stamps each event's `at` and each start's `createdAt` (default the system clock). */
  readonly clock?: Clock;
  /** How often `subscribe` reads the runs for new steps (default 250 ms). */
  readonly pollMs?: number;
}

/** The part of `Runtime` a Restate deployment serves, and `explain`, which it answers from the run object. */
export interface RestateRuntime<M extends Lifecycles = Lifecycles>
  extends Pick<Runtime<M>, 'start' | 'send' | 'dispatch' | 'flush' | 'getSnapshot' | 'list' | 'history' | 'onError'> {
  /**
   * Told of every committed step of every run on the deployment, whoever sent it, read by polling
   * (`pollMs`): in order per run, never before it is durable. A step's `snapshot` is the run as read
   * at or after that step (steps that came between two reads carry the later run).
   */
  subscribe(listener: (step: CommittedStep) => void): () => void;
  /** Why the run is where it is, from its run object (`explainRun`). */
  explain(runId: string): Promise<Explanation>;
  readonly clock: Clock;
  /** Waits for what was sent and stops reading for subscribers. */
  close(): Promise<void>;
}

export function restateRuntime<M extends Lifecycles = Lifecycles>(
  options: RestateRuntimeOptions<M>,
): RestateRuntime<M> {
  return new RestateClient(options) as unknown as RestateRuntime<M>;
}

class RestateClient {
  readonly clock: Clock;
  readonly #ingress: IngressClient;
  readonly #admin: AdminClient;
  readonly #pollMs: number;
  /** Which lifecycle each run id belongs to, once asked. */
  readonly #machineOf = new Map<string, string>();
  /** Each run's calls, one after the other, so events apply in the order sent. */
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #errorListeners = new Set<(error: RuntimeError) => void>();
  readonly #stepListeners = new Set<(step: CommittedStep) => void>();
  #poller: Poller | undefined;

  constructor(options: RestateRuntimeOptions) {
    this.clock = options.clock ?? systemClock;
    this.#ingress = new IngressClient(options.ingress, options);
    this.#admin = new AdminClient(options.admin);
    this.#pollMs = options.pollMs ?? 250;
  }

  async start(machine: string, options: { id?: string; input?: unknown } = {}): Promise<RunSnapshot> {
    const runId = options.id === undefined ? randomUUID() : checkRunId(options.id);
    const input = ownedInput(options.input, DEFAULT_PAYLOAD_LIMIT);
    await this.#poller?.ready;
    const answer = await this.#ingress.call<Answer<RunSnapshot>>(RUN_DIRECTORY, runId, 'start', {
      machine,
      input,
      at: this.clock.now(),
    });
    const run = unwrap(answer);
    this.#machineOf.set(runId, run.machine);
    return run;
  }

  dispatch(runId: string, event: { type: string }, options: SendOptions = {}): Promise<RunSnapshot> {
    let owned;
    let checked: SendOptions | undefined;
    try {
      checkRunId(runId);
      owned = ownedEvent(event, this.clock, DEFAULT_PAYLOAD_LIMIT);
      checked = checkSendOptions(options ?? null);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#inOrder(runId, async () => {
      await this.#poller?.ready;
      const machine = await this.#machine(runId);
      const key = checked?.idempotencyKey;
      const answer = await this.#ingress.call<Answer<RunSnapshot>>(
        runObjectName(machine),
        runId,
        'send',
        { event: owned, options: checked ?? {} },
        key === undefined ? undefined : `event:${key}`,
      );
      return unwrap(answer);
    });
  }

  send(runId: string, event: { type: string }, options?: SendOptions): void {
    this.dispatch(runId, event, options).catch((error: Error) => {
      for (const listener of this.#errorListeners) listener({ runId, event, error });
    });
  }

  async flush(): Promise<void> {
    while (this.#queues.size) await Promise.allSettled([...this.#queues.values()]);
  }

  async getSnapshot(runId: string): Promise<RunSnapshot> {
    checkRunId(runId);
    const machine = await this.#machine(runId);
    return unwrap(await this.#ingress.call<Answer<RunSnapshot>>(runObjectName(machine), runId, 'snapshot', null));
  }

  async history(runId: string): Promise<EventRecord[]> {
    checkRunId(runId);
    const machine = await this.#machine(runId);
    const entries: EventRecord[] = [];
    for (;;) {
      const { page, more } = await this.#historyPage(machine, runId, entries.at(-1)?.seq ?? 0);
      entries.push(...page);
      if (!more) return entries;
    }
  }

  /**
   * The entries after `after`, as many as one call answers, and whether more follow: the run
   * object says so; one deployed before it did answers HISTORY_PAGE entries at most, and a shorter
   * page was its last.
   */
  async #historyPage(machine: string, runId: string, after: number): Promise<{ page: EventRecord[]; more: boolean }> {
    const answer = await this.#ingress.call<HistoryAnswer>(runObjectName(machine), runId, 'history', {
      after,
      limit: HISTORY_MOST,
    } satisfies HistoryRequest);
    // A run object that says whether more follow packs whole pages and leaves the run id out: put back.
    const page = unwrap(answer).flatMap((item) =>
      (typeof item === 'string' ? unpackPage(item) : [item]).map((entry) => withRunId(runId, entry)),
    );
    return { page, more: typeof answer.more === 'boolean' ? answer.more : page.length >= HISTORY_PAGE };
  }

  async explain(runId: string): Promise<Explanation> {
    checkRunId(runId);
    const machine = await this.#machine(runId);
    return unwrap(await this.#ingress.call<Answer<Explanation>>(runObjectName(machine), runId, 'explain', null));
  }

  async list(filter: RunFilter = {}): Promise<RunSnapshot[]> {
    checkFilter(filter);
    const runs = (await this.#storedRuns(filter.machine)).filter((run) => matches(run, filter));
    runs.sort((a, b) => a.createdAt - b.createdAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    return runs.map(toRunSnapshot);
  }

  onError(listener: (error: RuntimeError) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  subscribe(listener: (step: CommittedStep) => void): () => void {
    this.#stepListeners.add(listener);
    if (!this.#poller) {
      const poller: Poller = { timer: undefined, seqs: undefined, busy: true, ready: undefined };
      this.#poller = poller;
      // The first read is where steps are told from: this client's own calls wait for it, so none is missed.
      poller.ready = this.#poll(poller)
        .catch(() => {})
        .finally(() => {
          poller.busy = false;
          poller.ready = undefined;
          if (this.#poller === poller) this.#schedulePoll(this.#pollMs);
        });
    }
    return () => {
      this.#stepListeners.delete(listener);
      if (this.#stepListeners.size === 0) this.#stopPolling();
    };
  }

  async close(): Promise<void> {
    this.#stepListeners.clear();
    this.#stopPolling();
    await this.flush();
  }

  #stopPolling(): void {
    if (this.#poller?.timer) clearTimeout(this.#poller.timer);
    this.#poller = undefined;
  }

  #schedulePoll(ms: number): void {
    const poller = this.#poller;
    if (!poller || poller.busy) return;
    if (poller.timer) clearTimeout(poller.timer);
    poller.timer = setTimeout(() => {
      poller.busy = true;
      this.#poll(poller)
        .catch(() => {}) // the next read tries again; a deployment that is down has no steps to tell
        .finally(() => {
          poller.busy = false;
          if (this.#poller === poller) this.#schedulePoll(this.#pollMs);
        });
    }, ms);
  }

  /** One read of every run: the steps of those that moved since the last, from their histories. */
  async #poll(poller: Poller): Promise<void> {
    const runs = await this.#storedRuns(undefined);
    const first = poller.seqs === undefined;
    const seqs = (poller.seqs ??= new Map());
    if (first) {
      for (const run of runs) seqs.set(run.runId, run.seq);
      return;
    }
    for (const run of runs) {
      const seen = seqs.get(run.runId);
      if (seen === run.seq) continue;
      this.#machineOf.set(run.runId, run.machine);
      const view = toRunSnapshot(run);
      // The steps since the last read (a page of history at a time), never past the row read.
      const entries: EventRecord[] = [];
      while ((entries.at(-1)?.seq ?? seen ?? 0) < run.seq) {
        const { page, more } = await this.#historyPage(run.machine, run.runId, entries.at(-1)?.seq ?? seen ?? 0);
        entries.push(...page.filter((entry) => entry.seq <= run.seq));
        if (!more) break;
      }
      if (this.#poller !== poller) return;
      // A run started since the last read: its start first, in the state its first event left.
      if (seen === undefined) {
        this.#tell({
          runId: run.runId,
          machine: run.machine,
          seq: 0,
          after: entries[0]?.before ?? run.state,
          snapshot: view,
        });
        seqs.set(run.runId, 0);
      }
      for (const entry of entries) {
        if (this.#poller !== poller) return;
        this.#tell({
          runId: run.runId,
          machine: run.machine,
          seq: entry.seq,
          event: entry.event,
          before: entry.before,
          after: entry.after,
          snapshot: view,
        });
        seqs.set(run.runId, entry.seq);
      }
    }
  }

  #tell(step: CommittedStep): void {
    for (const listener of this.#stepListeners) listener(step);
  }

  async #storedRuns(machine: string | undefined): Promise<StoredRun[]> {
    const where =
      machine === undefined
        ? `service_name LIKE 'statewright-%'`
        : `service_name = ${sqlString(runObjectName(machine))}`;
    const rows = await this.#admin.query<{ service_name: string; value_utf8: string }>(
      `SELECT service_name, value_utf8 FROM state WHERE key = '${STATE.run}' AND ${where}`,
    );
    return rows
      .filter((row) => machineOfObject(row.service_name))
      .map((row) => JSON.parse(row.value_utf8) as StoredRun);
  }

  async #machine(runId: string): Promise<string> {
    const known = this.#machineOf.get(runId);
    if (known) return known;
    const machine = unwrap(await this.#ingress.call<Answer<string>>(RUN_DIRECTORY, runId, 'machine', null));
    this.#machineOf.set(runId, machine);
    return machine;
  }

  #inOrder<T>(runId: string, call: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(runId) ?? Promise.resolve();
    const next = previous.then(call, call);
    const settled = next.then(
      () => {},
      () => {},
    );
    this.#queues.set(runId, settled);
    void settled.then(() => {
      if (this.#queues.get(runId) === settled) this.#queues.delete(runId);
    });
    return next;
  }
}

interface Poller {
  timer: NodeJS.Timeout | undefined;
  /** The seq of each run at the last read; undefined before the first. */
  seqs: Map<string, number> | undefined;
  busy: boolean;
  /** The first read, while it is under way. */
  ready: Promise<void> | undefined;
}

function unwrap<T>(answer: Answer<T>): T {
  if ('refused' in answer) throw fromWire(answer.refused);
  return answer.ok;
}
