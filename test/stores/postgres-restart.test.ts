/**
 * The Postgres server restarted under load (issue #13, fault 1): a private server of the test's own
 * (see private-postgres.ts; the shared one is never touched) is stopped as a crash would stop it
 * and started again, over and over, while a runtime commits to it. The host lives, an acknowledged
 * event is stored exactly once, a refused one not at all, and each run commits again afterwards.
 */
import { describe, expect, it } from 'vitest';
import { expectNothingLost, reportLoad, startLoad } from './postgres-load.js';
import { privatePostgresUnavailable, startPrivatePostgres } from './private-postgres.js';

if (privatePostgresUnavailable) console.warn(`postgres-restart.test.ts skipped: ${privatePostgresUnavailable}`);

describe.skipIf(privatePostgresUnavailable !== undefined)('postgres store: the server restarted under load', () => {
  it('loses nothing acknowledged and applies nothing refused across immediate restarts', async () => {
    const server = await startPrivatePostgres();
    const load = await startLoad({ connectionString: server.url, schema: 'statewright' }, 8);

    const restarts = 5;
    for (let i = 0; i < restarts; i++) {
      await load.progress(40);
      await server.restart();
    }
    await load.progress(40);
    const audit = await load.finish();
    reportLoad('server restarted', audit, { restarts });

    expectNothingLost(audit);
    expect(audit.refused).toBeGreaterThan(0); // the restarts did reach the runtime
  });
});
