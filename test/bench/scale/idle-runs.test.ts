/**
 * The scale benchmark's idle runs are real runs of their lifecycles: each copy replays from its
 * own history (`verifyRun`), rests where a waiting task or execution rests, sleeps with its lease
 * released and its deadline in the timer index, and a runtime takes its next event.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lifecycles } from '../../../machines/index.js';
import { createRuntime, verifyRun } from '../../../src/runtime/index.js';
import { postgresStore, sqliteStore, type Store } from '../../../src/stores/index.js';
import { heartbeat, idleRunId, seedIdleRuns } from '../../../bench/scale/idle-runs.js';
import { dropSchema, freshSchema, requirePostgres, skipPostgres, url } from '../../stores/test-postgres.js';
import { testDir } from '../../stores/temp-dir.js';

const stores: Record<string, () => Promise<Store>> = {
  sqlite: async () => sqliteStore(join(testDir('idle-runs'), 'state.db')),
  postgres: async () => {
    requirePostgres();
    const schema = freshSchema();
    onTestFinished(() => dropSchema(schema));
    return postgresStore({ connectionString: url, schema });
  },
};

describe.each(Object.keys(stores))('idle runs seeded for the scale benchmark (%s)', (kind) => {
  it.skipIf(kind === 'postgres' && skipPostgres)(
    'are runs of their lifecycles that replay, sleep released, and take their next event',
    async () => {
      const store = await stores[kind]!();
      onTestFinished(() => store.close());
      // Batches of 3 runs: the batch boundaries fall inside the range, and the copies cross templates.
      const seeded = await seedIdleRuns(store, 0, 14, { batch: 3 });
      expect(seeded.seeded).toBe(14);

      const runs = await store.list({ status: 'active' });
      expect(runs.map((r) => r.runId).sort()).toEqual(Array.from({ length: 14 }, (_, i) => idleRunId(i)).sort());
      for (const run of runs) {
        const i = Number(run.runId.slice('idle-'.length));
        expect(run.machine).toBe(i % 2 === 0 ? 'task' : 'execution');
        expect(run.state).toBe(i % 2 === 0 ? 'Active.Working.Executing' : 'running');
        expect(run.seq).toBe(2);
        const verification = await verifyRun(store, lifecycles, run.runId);
        expect(verification.mismatches).toEqual([]);
        expect(verification.events).toBe(2);
        if (store.leases) {
          expect(run.lease).toMatchObject({ state: 'released', epoch: 1 });
          // A task sleeps until its executor's lease runs out, days from now; an execution has no deadline.
          const leaseUntil = (run.snapshot as { context: { lease: { leaseUntil: number } } }).context.lease?.leaseUntil;
          expect(run.wakeAt).toBe(i % 2 === 0 ? leaseUntil : undefined);
          if (i % 2 === 0) expect(run.wakeAt).toBeGreaterThan(Date.now() + 86_400_000);
        }
      }
      // Copies of the same template differ only in their ids; tasks of other templates sleep until other days.
      const taskDeadlines = new Set(
        runs
          .filter((r) => r.machine === 'task')
          .map((r) => (r.snapshot as { context: { lease: { leaseUntil: number } } }).context.lease.leaseUntil),
      );
      expect(taskDeadlines.size).toBe(6);

      const runtime = await createRuntime({ store, machines: lifecycles });
      onTestFinished(() => runtime.close());
      const after = await runtime.dispatch(idleRunId(4), heartbeat);
      expect(after).toMatchObject({ state: 'Active.Working.Executing', seq: 3 });
      expect((await store.history(idleRunId(4))).map((e) => e.event.type)).toEqual([
        'create_task',
        'claim',
        'heartbeat',
      ]);
    },
  );
});
