import { findConflicts, type EventRecord, type RunFilter, type Store, type StoredRun } from './store.js';
import { StoreClosedError } from './store-errors.js';

/**
 * Keeps everything in this process: for tests, and for runs that need no durability.
 *
 * A commit's objects are kept as given, not copied: the Store contract hands them to the store
 * (the runtime builds fresh ones for every step and never touches them again), and a run's row
 * keeps its snapshot lazy, so a run nobody reads back never pays for serializing it. Everything
 * read out is a JSON copy, exactly what a serializing store would give back, so no reader can
 * change what is stored.
 */
export function memoryStore(): Store {
  const runs = new Map<string, StoredRun>();
  const events = new Map<string, EventRecord[]>();
  const idempotent = new Map<string, { seq: number; result: unknown }>();
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new StoreClosedError('memory', 'this process');
  };

  return {
    kind: 'memory',
    async commit(commits) {
      assertOpen();
      const conflict = findConflicts(commits, (id) => runs.get(id)?.seq);
      if (conflict) throw conflict;
      let log: EventRecord[] | undefined;
      let logOf: string | undefined;
      for (const commit of commits) {
        const runId = commit.run.runId;
        runs.set(runId, commit.run);
        const event = commit.event;
        if (!event) continue;
        if (logOf !== runId) {
          logOf = runId;
          log = events.get(runId);
          if (!log) events.set(runId, (log = []));
        }
        log!.push(event);
        if (event.idempotencyKey !== undefined) idempotent.set(`${runId}\u0000${event.idempotencyKey}`, { seq: event.seq, result: commit.result });
      }
    },
    async load(runId) {
      assertOpen();
      const run = runs.get(runId);
      return run && copy(run);
    },
    async list(filter: RunFilter = {}) {
      assertOpen();
      return [...runs.values()].filter((r) => matches(r, filter)).map(copy);
    },
    async history(runId) {
      assertOpen();
      return copy(events.get(runId) ?? []);
    },
    async findIdempotent(runId, key) {
      assertOpen();
      const found = idempotent.get(`${runId}\u0000${key}`);
      return found && copy(found);
    },
    async close() {
      closed = true;
    },
  };
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));

export function matches(run: StoredRun, filter: RunFilter): boolean {
  return (
    (filter.machine === undefined || run.machine === filter.machine) &&
    (filter.status === undefined || run.status === filter.status) &&
    (filter.state === undefined || run.state === filter.state)
  );
}
