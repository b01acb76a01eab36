import type { Store, StoreLeases } from '../stores/store.js';

/**
 * Where the host dies at a commit boundary: before the commit is durable (nothing of it is
 * written), or right after it is durable but before anyone hears of it.
 */
export type Death = 'before-durable' | 'after-durable';

/**
 * A store through which a host dies, in process: once `die()` is called, every commit the host
 * hands over is either never written or written, and then never answered, as if the process had
 * been killed at that instant. A commit that never answers stops the runtime's group committer for
 * good, so nothing the dead host does afterwards reaches the store; the test then abandons it and
 * opens the same files again, as a restarted process would (`statewright test` does this at every
 * commit of every path; test/model's crash suites at every boundary of the built-in lifecycles). `caught` tells which runs' commits the
 * death caught (by the seq each would have made), and whether they were written.
 */
export function dyingStore(
  inner: Store,
  death: Death = 'after-durable',
  /**
   * When its lease calls stop answering: once told to die (`when-told`, the default), or only once a
   * commit met the death (`at-commit`: a host told to die at its next commit may still claim the
   * run that commit is for, as `statewright test` needs of a host it has just started).
   */
  leasesDie: 'when-told' | 'at-commit' = 'when-told',
) {
  let dying = false;
  let dead = false;
  let how = death;
  const caught = new Map<string, { seq: number; written: boolean }>();
  let reached: () => void;
  const deathReached = new Promise<void>((resolve) => (reached = resolve));
  const store: Store = {
    kind: inner.kind,
    async commit(commits) {
      if (!dying) return inner.commit(commits);
      dead = true;
      for (const commit of commits) caught.set(commit.run.runId, { seq: commit.run.seq, written: false });
      if (how === 'after-durable') {
        await inner.commit(commits);
        for (const commit of commits) caught.get(commit.run.runId)!.written = true;
      }
      reached();
      return new Promise<never>(() => {});
    },
    load: (runId) => inner.load(runId),
    list: (filter) => inner.list(filter),
    listPage: (query) => inner.listPage(query),
    countByState: (filter) => inner.countByState(filter),
    history: (runId) => inner.history(runId),
    findIdempotent: (runId, key) => inner.findIdempotent(runId, key),
    ...(inner.listByIndex && { listByIndex: inner.listByIndex.bind(inner) }),
    ...(inner.syncIndex && { syncIndex: inner.syncIndex.bind(inner) }),
    ...(inner.leases && { leases: dyingLeases(inner.leases, () => (leasesDie === 'at-commit' ? dead : dying)) }),
    close: () => inner.close(),
  };
  return {
    store,
    /** From now on the host is dead at its next commit (the way given here, or the store's). */
    die: (as: Death = death) => {
      how = as;
      dying = true;
    },
    /** Resolves once a commit has met the death (and, after-durable, was written). */
    deathReached,
    caught,
  };
}

/** The store's leases as a host that dies sees them: once dead, it renews, claims and releases nothing (its calls never return). */
function dyingLeases(inner: StoreLeases, dead: () => boolean): StoreLeases {
  const never = () => new Promise<never>(() => {});
  return {
    claimDue: (...args) => (dead() ? never() : inner.claimDue(...args)),
    claimRun: (...args) => (dead() ? never() : inner.claimRun(...args)),
    renew: (...args) => (dead() ? never() : inner.renew(...args)),
    release: (...args) => (dead() ? never() : inner.release(...args)),
    holders: () => (dead() ? never() : inner.holders()),
  };
}
