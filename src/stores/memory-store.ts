import { findConflicts, type Commit, type EventRecord, type RunFilter, type Store, type StoredRun } from './store.js';

/** Keeps everything in this process: for tests, and for runs that need no durability. */
export function memoryStore(): Store {
  const runs = new Map<string, StoredRun>();
  const events = new Map<string, EventRecord[]>();
  const idempotent = new Map<string, { seq: number; result: unknown }>();

  return {
    kind: 'memory',
    async commit(commits) {
      const conflict = findConflicts(commits, (id) => runs.get(id)?.seq);
      if (conflict) throw conflict;
      // Commits are fresh objects built per step (snapshots are immutable), so they are kept as
      // they are; reads hand out JSON copies, exactly what a serializing store would give back.
      for (const commit of commits as Commit[]) {
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
      const run = runs.get(runId);
      return run && copy(run);
    },
    async list(filter: RunFilter = {}) {
      return [...runs.values()].filter((r) => matches(r, filter)).map(copy);
    },
    async history(runId) {
      return copy(events.get(runId) ?? []);
    },
    async findIdempotent(runId, key) {
      const found = idempotent.get(`${runId}\u0000${key}`);
      return found && copy(found);
    },
    async close() {},
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
