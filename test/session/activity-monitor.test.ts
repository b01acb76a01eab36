import { afterEach, describe, expect, it } from 'vitest';
import type { SessionRun } from '../../machines/session/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import {
  formatDuration,
  startActivityMonitor,
  type ActivityMonitor,
  type InactivityWarning,
} from '../../src/session/activity-monitor.js';
import { T0 } from '../machines/session-fixtures.js';
import { sessionRun } from './session-runs.js';

/** Lets a check that was started by a timer finish. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

let monitor: ActivityMonitor | undefined;
afterEach(() => monitor?.stop());

function watch(runs: () => SessionRun[], options: { limit?: number; repeat?: boolean; intervalMs?: number } = {}) {
  const clock = new ManualClock(T0);
  const warnings: InactivityWarning[] = [];
  monitor = startActivityMonitor({
    clock,
    sessions: runs,
    inactivityLimitMs: options.limit ?? 60_000,
    ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
    ...(options.repeat !== undefined && { repeat: options.repeat }),
    warn: (w) => warnings.push(w),
  });
  return { clock, warnings };
}

describe('the activity monitor', () => {
  it('checks every 30 s and warns about active sessions quiet for longer than the limit, not those waiting for a person', async () => {
    // Last activity: running at T0 + 5 s, waiting for an approval at T0 + 20 s; the completed one never counts.
    let runs = [
      sessionRun('s-run', 'running', 0, 5),
      sessionRun('s-wait', 'waiting_input', 0, 20),
      sessionRun('s-done', 'completed', 0, 1),
    ];
    const { clock, warnings } = watch(() => runs);
    clock.advance(30_000);
    await settle();
    clock.advance(30_000);
    await settle();
    expect(warnings).toEqual([]); // at T0 + 60 s nobody has been quiet for more than 60 s
    clock.advance(30_000);
    await settle();
    expect(warnings).toEqual([
      {
        session_id: 's-run',
        status: 'running',
        last_activity_at: T0 + 5_000,
        inactive_ms: 85_000,
        message: 'Session s-run inactive for 1m 25s',
      },
    ]);

    // Once per quiet period: not again at the next check, but again after new activity and a new silence.
    clock.advance(30_000);
    await settle();
    expect(warnings).toHaveLength(1);
    runs = [sessionRun('s-run', 'running', 0, 110), runs[1]!];
    clock.advance(30_000);
    await settle();
    expect(warnings).toHaveLength(1);
    clock.advance(60_000);
    await settle();
    expect(warnings.slice(1).map((w) => [w.session_id, w.inactive_ms])).toEqual([['s-run', 100_000]]);
    // The approval decided, the session runs again: its silence from then on counts.
    runs = [runs[0]!, sessionRun('s-wait', 'running', 0, 200)];
    clock.advance(90_000);
    await settle();
    expect(warnings.slice(2).map((w) => [w.session_id, w.status])).toEqual([['s-wait', 'running']]);
  });

  it("warns on every check with repeat, as the seed's loop does", async () => {
    const { clock, warnings } = watch(() => [sessionRun('s-run', 'running', 0, 0)], {
      repeat: true,
      intervalMs: 10_000,
      limit: 15_000,
    });
    for (let i = 0; i < 4; i++) {
      clock.advance(10_000);
      await settle();
    }
    expect(warnings.map((w) => w.inactive_ms)).toEqual([20_000, 30_000, 40_000]);
  });

  it('stops checking when stopped', async () => {
    const { clock, warnings } = watch(() => [sessionRun('s-run', 'running', 0, 0)], { limit: 1 });
    monitor!.stop();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(120_000);
    await settle();
    expect(warnings).toEqual([]);
  });

  it('reports a failed check to onError and keeps checking', async () => {
    const clock = new ManualClock(T0);
    const errors: unknown[] = [];
    let calls = 0;
    monitor = startActivityMonitor({
      clock,
      inactivityLimitMs: 1_000,
      sessions: () => {
        calls++;
        throw new Error('store unavailable');
      },
      warn: () => {},
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 2; i++) {
      clock.advance(30_000);
      await settle();
    }
    expect(calls).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['store unavailable', 'store unavailable']);
  });

  it('does not start a check while the previous one is still running', async () => {
    const clock = new ManualClock(T0);
    let calls = 0;
    let release: (runs: SessionRun[]) => void = () => {};
    monitor = startActivityMonitor({
      clock,
      inactivityLimitMs: 1_000,
      sessions: () => {
        calls++;
        return new Promise<SessionRun[]>((resolve) => (release = resolve));
      },
      warn: () => {},
    });
    clock.advance(90_000);
    await settle();
    expect(calls).toBe(1);
    release([]);
    await settle();
    clock.advance(30_000);
    await settle();
    expect(calls).toBe(2);
  });

  it('refuses a limit or interval that is not a positive duration', () => {
    const base = { clock: new ManualClock(T0), sessions: () => [], warn: () => {} };
    expect(() => startActivityMonitor({ ...base, inactivityLimitMs: 0 })).toThrow(
      'Activity monitor: inactivityLimitMs must be a positive number of milliseconds, got 0',
    );
    expect(() => startActivityMonitor({ ...base, inactivityLimitMs: 1, intervalMs: Number.NaN })).toThrow(
      /intervalMs must be a positive/,
    );
  });

  it('words durations the way a person reads them', () => {
    expect(formatDuration(999)).toBe('999ms');
    expect(formatDuration(85_000)).toBe('1m 25s');
    expect(formatDuration(2 * 86_400_000 + 3_600_000 + 5_000)).toBe('2d 1h 5s');
  });
});
