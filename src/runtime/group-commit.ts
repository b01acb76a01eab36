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
 *
 * A store that does several commits well at once (`Store.commitsAtOnce`: Postgres, one per pooled
 * connection) gets the waiting steps split over its free slots, each batch its own transaction.
 * That is safe because a run never has two commits in flight (a hosted run awaits each batch before
 * it applies the next), so concurrent batches hold distinct runs and each run's order is kept.
 */
export class GroupCommitter {
  #waiting: Waiting[] = [];
  #inFlight = 0;
  #scheduled = false;
  readonly #slots: number;

  constructor(private readonly store: Store) {
    this.#slots = Math.max(1, Math.floor(store.commitsAtOnce ?? 1));
  }

  commit(commits: readonly Commit[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ commits, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#slots) return;
    this.#scheduled = true;
    // A microtask runs after the runs that are draining right now have handed in their steps.
    queueMicrotask(this.#sendScheduled);
  }

  /** Made once: a run whose events are each awaited schedules a commit at every event. */
  readonly #sendScheduled = () => {
    this.#scheduled = false;
    this.#sendWaiting();
  };

  /** Sends what waits, split evenly over the free slots. */
  #sendWaiting(): void {
    const free = this.#slots - this.#inFlight;
    if (free <= 0 || this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    const size = Math.ceil(waiting.length / free);
    for (let start = 0; start < waiting.length; start += size)
      void this.#send(size >= waiting.length ? waiting : waiting.slice(start, start + size));
  }

  async #send(batch: Waiting[]): Promise<void> {
    this.#inFlight++;
    try {
      await this.store.commit(batch.length === 1 ? batch[0]!.commits : batch.flatMap((w) => w.commits));
      for (const w of batch) w.resolve();
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else await this.#commitOneByOne(batch, error);
    } finally {
      this.#inFlight--;
      if (this.#waiting.length) this.#schedule();
    }
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
