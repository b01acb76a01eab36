/**
 * Issue #17's chaos test on SQLite: three `statewright serve` processes on one SQLite file follow
 * the same leases and takeover rule as on Postgres, through the same rounds of SIGKILL and SIGSTOP
 * (test/support/chaos-scenario.ts). A host paused in the middle of a write transaction would hold
 * the file's write lock, and every host would wait for it: such a pause is undone and tried again
 * (and counted). It prints its figures as one JSON line, for docs/hosting.md ("Several hosts on one store").
 */
import { join } from 'node:path';
import { it, onTestFinished } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { testDir } from '../stores/temp-dir.js';
import { expectSound, runChaos } from '../support/chaos-scenario.js';
import { writeLockHeld } from '../support/sqlite-write-lock.js';

it('three hosts on one SQLite file lose nothing, repeat nothing and fence a paused host, through kills and pauses', async () => {
  const dir = testDir('chaos-sqlite');
  const path = join(dir, 'state.db');
  // The test's own connection makes the file, so the hosts open one that exists.
  const audit = sqliteStore(path);
  onTestFinished(() => audit.close());
  const outcome = await runChaos({
    dir,
    store: `sqlite:${path}`,
    audit,
    ttlMs: 1500,
    hibernateAfterMs: 1000,
    runs: 100,
    rounds: 3,
    pausedHostBlocks: async () => writeLockHeld(path),
  });
  console.log(`chaos figures: ${JSON.stringify({ test: 'chaos-sqlite', ...outcome.figures })}`);
  expectSound(outcome);
}, 300_000);
