/**
 * The runs on Restate as a `Runtime` for `statewright serve --engine restate:`: the live view and the
 * HTTP API read and move them through the client (restate-runtime.ts), and their `store` is a
 * read-only one over the same client (pages and counts from the admin query API's run rows, single
 * runs from the run objects). Nothing is hosted here: a run's actors run in the worker, so what only
 * a hosting runtime has (unloading, set-aside runs, index scans) has nothing to do or is refused.
 */
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { SendOptions } from '../actor-contract/run-handle.js';
import { StatewrightError } from '../errors.js';
import type { ExplainsHosting } from '../explain/index.js';
import { UnknownRunError } from '../runtime/errors.js';
import { resolveOwner } from '../runtime/owner.js';
import type { Runtime } from '../runtime/runtime.js';
import { toRunSnapshot, type RunSnapshot } from '../runtime/run-snapshot.js';
import {
  countOf,
  pageOf,
  type EventRecord,
  type RunCounts,
  type RunFilter,
  type RunPage,
  type RunPageQuery,
  type Store,
  type StoredRun,
} from '../stores/store.js';
import { restateHome } from './object-names.js';
import type { RestateRuntime } from './restate-runtime.js';

/** A write or a hosting call on runs that live on Restate, which only their run objects make. */
export class RestateReadOnlyError extends StatewrightError {
  readonly kind = 'conflict';
  override readonly name = 'RestateReadOnlyError';
  constructor(what: string) {
    super(
      `${what} is not done here: runs on Restate are written by their run objects and hosted by statewright worker. Send the run an event instead (statewright send --engine restate:<ingress>).`,
    );
  }
}

class RestateReadStore implements Store {
  readonly kind = 'restate';
  constructor(readonly client: RestateRuntime) {}

  async commit(): Promise<void> {
    throw new RestateReadOnlyError('A store commit');
  }

  async load(runId: string): Promise<StoredRun | undefined> {
    try {
      return await this.client.getSnapshot(runId);
    } catch (error) {
      if (error instanceof UnknownRunError) return undefined;
      throw error;
    }
  }

  list(filter?: RunFilter): Promise<StoredRun[]> {
    return this.client.list(filter);
  }

  async listPage(query: RunPageQuery): Promise<RunPage> {
    return pageOf(await this.client.list(), query, (run) => run);
  }

  async countByState(filter: RunFilter = {}): Promise<RunCounts> {
    return countOf(await this.client.list(), filter);
  }

  history(runId: string): Promise<EventRecord[]> {
    return this.client.history(runId);
  }

  async findIdempotent(): Promise<undefined> {
    throw new RestateReadOnlyError('Looking up an idempotency key outside its run object');
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The runs on Restate as a `Runtime`, which also tells `explainRun` where each run lives (its run object). */
export function restateViewRuntime(client: RestateRuntime, machines: Lifecycles): Runtime & ExplainsHosting {
  const store = new RestateReadStore(client);
  const logListeners = new Set<Parameters<Runtime['onLog']>[0]>();
  const runtime: Runtime = {
    store,
    machines,
    clock: client.clock,
    owner: resolveOwner(undefined),
    restoredAtStart: [],
    start: (machine, options) => client.start(machine, options),
    send: (runId, event, options?: SendOptions) => client.send(runId, event, options),
    dispatch: (runId, event, options?: SendOptions) => client.dispatch(runId, event, options),
    flush: () => client.flush(),
    getSnapshot: (runId) => client.getSnapshot(runId),
    list: (filter) => client.list(filter),
    listPage: async (query) => {
      const page = await store.listPage(query);
      return { runs: page.runs.map(toRunSnapshot), next: page.next };
    },
    countRuns: (filter) => store.countByState(filter),
    listByIndex: async () => {
      throw new RestateReadOnlyError('Listing by an index key');
    },
    history: (runId) => client.history(runId),
    subscribe: (listener) => client.subscribe(listener),
    onError: (listener) => client.onError(listener),
    onLog: (listener) => {
      logListeners.add(listener);
      return () => logListeners.delete(listener);
    },
    log: (runId, level, message, data) => {
      for (const listener of logListeners) listener({ runId, level, message, ...(data && { data }) });
    },
    lastRefusal: () => undefined,
    unload: async () => {},
    close: () => client.close(),
    setAside: () => [],
    endSetAside: async (): Promise<RunSnapshot> => {
      throw new RestateReadOnlyError('Ending a set-aside run');
    },
  };
  return Object.assign(runtime, { hostedOn: restateHome });
}
