import type pg from 'pg';

/**
 * A pooled connection kept checked out from one commit to the next within a turn of the event
 * loop. A lone run commits at every event, one commit at a time, and its next commit is made in
 * the same turn as the answer to the one before (the answer resolves the sender, whose next event
 * is applied and committed before any I/O is read): taking a connection from the pool and handing
 * it back at each of them was a measurable share of the client's work per step. Once the turn's
 * promise jobs are done (a `process.nextTick` queued from one runs after all of them: cheaper than
 * an immediate, which made the event loop run its check phase at every step) the connection goes
 * back to the pool, so it never waits outside it (where the pool would not see it fail, nor hand
 * it to a read).
 *
 * Only one is kept: the commits of other runs in flight at the same time take theirs from the pool
 * as before. A pool of one connection keeps none: its reads would wait behind it.
 */
export class KeptConnection {
  #kept: pg.PoolClient | undefined;
  #handBackScheduled = false;
  readonly #handBack = () => {
    this.#handBackScheduled = false;
    const kept = this.#kept;
    this.#kept = undefined;
    kept?.release();
  };

  constructor(
    private readonly pool: pg.Pool,
    /** The pool has more than one connection: one may be kept. */
    private readonly mayKeep: boolean,
  ) {}

  /** The kept connection when there is one, else one from the pool. */
  take(): pg.PoolClient | Promise<pg.PoolClient> {
    const kept = this.#kept;
    if (!kept) return this.pool.connect();
    this.#kept = undefined;
    return kept;
  }

  /**
   * Done with `client`: kept for the next commit of this turn when none is and nothing waits for
   * the pool, else back to the pool; a broken one (`error`) is dropped by the pool.
   */
  give(client: pg.PoolClient, error?: Error): void {
    if (error || this.#kept || !this.mayKeep || this.pool.waitingCount > 0) return void client.release(error);
    this.#kept = client;
    if (this.#handBackScheduled) return;
    this.#handBackScheduled = true;
    process.nextTick(this.#handBack);
  }

  /** Gives the kept connection back at once, so that the pool can end. */
  close(): void {
    this.#handBack();
  }
}
