import { findConflicts, type Commit, type EventRecord, type RunFilter, type Store, type StoredRun } from './store.js';
import { StoreClosedError } from './store-errors.js';

/**
 * Keeps everything in this process. Commits are copied in (structuredClone) so a caller that
 * mutates an object after committing cannot change what was stored, as with a real store.
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
      for (const commit of structuredClone(commits) as Commit[]) {
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
      return run && structuredClone(run);
    },
    async list(filter: RunFilter = {}) {
      assertOpen();
      return structuredClone([...runs.values()].filter((r) => matches(r, filter)));
    },
    async history(runId) {
      assertOpen();
      return structuredClone(events.get(runId) ?? []);
    },
    async findIdempotent(runId, key) {
      assertOpen();
      const found = idempotent.get(`${runId}\u0000${key}`);
      return found && structuredClone(found);
    },
    async close() {
      closed = true;
    },
  };
}

export function matches(run: StoredRun, filter: RunFilter): boolean {
  return (
    (filter.machine === undefined || run.machine === filter.machine) &&
    (filter.status === undefined || run.status === filter.status) &&
    (filter.state === undefined || run.state === filter.state)
  );
}
