/**
 * Issue #17's chaos test on Postgres: three `statewright serve` hosts on one schema, a hundred runs
 * of mixed lifecycles, and rounds of SIGKILL (the host is replaced by a fresh one) and SIGSTOP past
 * the lease TTL (then SIGCONT). See test/support/chaos-scenario.ts for what is done and checked.
 * It prints its figures as one JSON line, for docs/hosting.md ("Several hosts on one store").
 */
import { it, onTestFinished } from 'vitest';
import { postgresStore } from '../../src/stores/postgres/postgres-store.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../stores/test-postgres.js';
import { testDir } from '../stores/temp-dir.js';
import { expectSound, runChaos } from '../support/chaos-scenario.js';

it.skipIf(skipPostgres)(
  'three hosts on one Postgres schema lose nothing, repeat nothing and fence a paused host, through kills and pauses',
  async () => {
    requirePostgres();
    const schema = freshSchema();
    const audit = await postgresStore({ connectionString: url, schema });
    onTestFinished(async () => {
      await audit.close();
      await dropSchema(schema);
    });
    const outcome = await runChaos({
      dir: testDir('chaos-postgres'),
      store: `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`,
      audit,
      ttlMs: 1500,
      hibernateAfterMs: 1000,
      runs: 100,
      rounds: 3,
    });
    console.log(`chaos figures: ${JSON.stringify({ test: 'chaos-postgres', ...outcome.figures })}`);
    expectSound(outcome);
  },
  300_000,
);
