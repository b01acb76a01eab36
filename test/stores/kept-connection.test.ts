/**
 * The Postgres store's kept connection (kept-connection.ts), on a real pool: a run whose events are
 * each awaited commits on one connection from event to event, and the connection is back in the
 * pool once the turn's promise jobs are done, so a read or a timer finds it there.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { KeptConnection } from '../../src/stores/postgres/kept-connection.js';
import { requirePostgres, skipPostgres, url } from './test-postgres.js';

describe.skipIf(skipPostgres)('postgres kept connection', () => {
  let pool: pg.Pool | undefined;
  afterEach(async () => {
    await pool?.end();
    pool = undefined;
  });

  /** A pool of `size` and a count of the connections it hands out. */
  function countedPool(size: number) {
    requirePostgres();
    const made = new pg.Pool({ connectionString: url, max: size });
    pool = made;
    const counted = { connects: 0 };
    const connect = made.connect.bind(made);
    made.connect = (() => {
      counted.connects++;
      return connect();
    }) as typeof made.connect;
    return { pool: made, counted };
  }

  /** Takes a connection, runs a statement on it and gives it back, as a commit does. */
  async function commitOn(kept: KeptConnection): Promise<pg.PoolClient> {
    const taking = kept.take();
    const client = taking instanceof Promise ? await taking : taking;
    await client.query('SELECT 1');
    kept.give(client);
    return client;
  }

  it('keeps one connection from one awaited commit to the next within a turn, and hands it back after', async () => {
    const { pool, counted } = countedPool(3);
    const kept = new KeptConnection(pool, true);
    // Each commit follows the one before in promise jobs only, as a run's awaited events do.
    const clients: pg.PoolClient[] = [];
    for (let i = 0; i < 5; i++) clients.push(await commitOn(kept));
    // Each answer came over the socket in a turn of its own, and the next commit took the
    // connection in that turn's promise jobs: the pool was asked once, for the first.
    expect(counted.connects).toBe(1);
    expect(new Set(clients).size).toBe(1);
    const again = kept.take();
    expect(again).toBe(clients[0]);
    kept.give(again as pg.PoolClient);
    // Once this turn's promise jobs are done, it is back in the pool: idle, and no longer kept.
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.idleCount).toBe(pool.totalCount);
    const next = kept.take();
    expect(next).toBeInstanceOf(Promise);
    (await next).release();
  });

  it('keeps none with a pool of one, and none while a read waits for the pool', async () => {
    const { pool } = countedPool(1);
    const alone = new KeptConnection(pool, false);
    const client = await commitOn(alone);
    // Given back at once: a read on the pool of one would otherwise wait behind it.
    expect(pool.idleCount).toBe(1);
    expect(alone.take()).toBeInstanceOf(Promise);
    await pool.end();

    const { pool: two } = countedPool(2);
    const kept = new KeptConnection(two, true);
    const a = await two.connect();
    const b = await two.connect();
    const waiting = two.connect(); // a read waits for a connection
    kept.give(a);
    // Not kept: it went to the waiting read.
    const handed = await waiting;
    expect(handed).toBe(a);
    handed.release();
    b.release();
    expect(client).toBeDefined();
  });
});
