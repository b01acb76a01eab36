import { CommitConflictError, LeaseLostError, type Commit, type Store } from '../stores/store.js';

interface Waiting {
  commits: readonly Commit[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the steps that many runs produce in the same turn of the event loop go to the
 * store as one transaction, so 100 busy runs pay for one fsync, not 100. No caller hears of its
 * commit before the transaction is durable. When a batch fails, each caller's steps are retried
 * alone, so one run's conflict (or lost lease) never fails another run's events.
 */
export class GroupCommitter {
  #waiting: Waiting[] = [];
  #running = false;

  constructor(private readonly store: Store) {}

  commit(commits: readonly Commit[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ commits, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        // A microtask runs after the runs that are draining right now have handed in their steps.
        queueMicrotask(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length) {
      const batch = this.#waiting;
      this.#waiting = [];
      try {
        await this.store.commit(batch.length === 1 ? batch[0]!.commits : batch.flatMap((w) => w.commits));
        for (const w of batch) w.resolve();
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else await this.#commitOneByOne(batch, error);
      }
    }
    this.#running = false;
  }

  async #commitOneByOne(batch: Waiting[], batchError: unknown): Promise<void> {
    // Only a conflict or a lost lease is specific to some runs; any other failure (disk full,
    // closed store) would fail every retry too, so report it to everyone at once.
    if (!(batchError instanceof CommitConflictError || batchError instanceof LeaseLostError)) {
      for (const w of batch) w.reject(batchError);
      return;
    }
    for (const w of batch) {
      try {
        await this.store.commit(w.commits);
        w.resolve();
      } catch (error) {
        w.reject(error);
      }
    }
  }
}
