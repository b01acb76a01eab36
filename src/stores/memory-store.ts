import { findConflicts, type Commit, type EventRecord, type RunFilter, type Store, type StoredRun } from './store.js';
import { StoreClosedError } from './store-errors.js';

/** Keeps everything in this process: for tests, and for runs that need no durability. */
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
      // Stored and handed out as JSON copies, exactly what a serializing store keeps and gives
      // back: no caller can change a stored run through an object it still holds.
      for (const commit of copy(commits) as Commit[]) {
        runs.set(commit.run.runId, commit.run);
        if (!commit.event) continue;
        const log = events.get(commit.run.runId) ?? [];
        log.push(commit.event);
        events.set(commit.run.runId, log);
        if (commit.event.idempotencyKey !== undefined) {
          idempotent.set(`${commit.run.runId}\u0000${commit.event.idempotencyKey}`, { seq: commit.event.seq, result: commit.result });
        }
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
