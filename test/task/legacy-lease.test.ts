/**
 * A task stored before durations were bounded, with `ttlMs: 9e15` and a lease claimed under it,
 * used to end every host that restored it (its lease timer threw `RangeError: Invalid time value`).
 * Now it restores, its unreachable deadline is never armed, and new leases end on a date.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lifecycles, MAX_DURATION_MS } from '../../machines/index.js';
import { createRuntime, ManualClock, MAX_TIMEOUT_MS, type LogEntry } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/stores/index.js';
import { plainRow } from '../../src/stores/store.js';
import { testDir } from '../stores/temp-dir.js';

const START = Date.UTC(2026, 5, 1);
const A = 'executor:codex:1';
const ABSURD = 9e15;

type TaskSnapshot = {
  context: { leaseTtlMs: number; lease: { claimedBy: string; leaseUntil: number } };
  children: Record<string, { snapshot: { input: { deadline: number; event: { leaseUntil: number } } } }>;
};

/** A task claimed by A, as the schema without a bound let it be stored: TTL 9e15, its lease and timer past the last date. */
async function legacyTaskStore(path: string) {
  const scratch = sqliteStore(join(testDir('legacy-scratch'), 'state.db'));
  const rt = await createRuntime({ store: scratch, machines: lifecycles, clock: new ManualClock(START) });
  await rt.start('task', { id: 'task', input: { lease: { ttlMs: 1000 } } });
  await rt.dispatch('task', { type: 'create_task', agent: 'supervisor:claude:1', task: 'ship it' } as never);
  await rt.dispatch('task', { type: 'claim', agent: A } as never);
  await rt.close();
  const row = (await scratch.load('task'))!;
  await scratch.close();

  const snapshot = structuredClone(row.snapshot) as TaskSnapshot;
  const until = START + ABSURD;
  snapshot.context.leaseTtlMs = ABSURD;
  snapshot.context.lease.leaseUntil = until;
  const timer = snapshot.children['lease-timer']!.snapshot.input;
  timer.deadline = until;
  timer.event.leaseUntil = until;
  const store = sqliteStore(path);
  // Stored with no lease and due at once, as the conversion to leases (SQLite schema 6) leaves an older store's runs.
  const { lease: _lease, wakeAt: _wakeAt, ...unleased } = plainRow(row);
  await store.commit([{ run: { ...unleased, snapshot }, expectedSeq: undefined, wakeAt: 0 }]);
  await store.close();
}

describe('a task lease stored with ttlMs 9e15', () => {
  it('no longer ends the restarts: the run is restored, its timer never armed, and the next lease ends on a date', async () => {
    const path = join(testDir('legacy-lease'), 'state.db');
    await legacyTaskStore(path);

    for (let restart = 0; restart < 2; restart++) {
      const store = sqliteStore(path);
      const clock = new ManualClock(START + 10_000);
      const logs: LogEntry[] = [];
      const rt = await createRuntime({ store, machines: lifecycles, clock, onLog: (entry) => logs.push(entry) });
      expect(rt.restoredAtStart.map((r) => r.runId)).toEqual(['task']);
      expect(rt.setAside()).toEqual([]);
      // The first restart finds the lease stored past the last date; the second, the renewed one.
      if (restart === 0)
        expect(logs).toContainEqual(
          expect.objectContaining({
            runId: 'task',
            level: 'warn',
            message: expect.stringMatching(/'lease_expired' deadline .* will never fire/),
          }),
        );
      else expect([logs, clock.pendingTimers]).toEqual([[], 1]);
      // Past where Node fires an overflowed timer, and past one step of the longest timer.
      clock.advance(MAX_TIMEOUT_MS + 1);
      await rt.flush();
      const held = (await rt.getSnapshot('task')).context as TaskSnapshot['context'];
      expect(held.lease.claimedBy).toBe(A);

      if (restart === 0) {
        const renewed = await rt.dispatch('task', { type: 'heartbeat', agent: A } as never);
        expect(renewed.context.lease.leaseUntil).toBe(clock.now() + MAX_DURATION_MS);
      }
      await rt.close();
      await store.close();
    }
  });
});
