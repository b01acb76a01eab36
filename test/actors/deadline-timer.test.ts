/**
 * Deadlines fire at their instant however far away: Node's timers hold at most 2^31-1 ms (24.8
 * days) and fire a longer one after 1 ms, so the deadline timer waits in steps. `ManualClock`
 * overflows as Node does, so these tests fail on a timer that forgets to.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import {
  createRuntime,
  ManualClock,
  MAX_TIMEOUT_MS,
  setTimeoutAt,
  systemClock,
  type LogEntry,
} from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/index.js';
import { timedLifecycle } from '../fixtures/timed-machine.js';

const DAY = 24 * 60 * 60 * 1000;
const START = Date.UTC(2026, 5, 1);
const machines = { ...lifecycles, timed: timedLifecycle };

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

describe('a deadline weeks away', () => {
  it('fires at its instant 40 days on, not before', async () => {
    const clock = new ManualClock(START);
    const rt = await createRuntime({ store: memoryStore(), machines, clock });
    const { runId } = await rt.start('timed', { input: { timeoutMs: 40 * DAY, createdAt: START } });
    const deadline = START + 40 * DAY;

    clock.advance(1); // where Node would fire an overflowed timer
    await rt.flush();
    clock.set(deadline - 1);
    await rt.flush();
    expect((await rt.getSnapshot(runId)).state).toBe('waiting');
    clock.set(deadline);
    await rt.flush();
    const fired = await rt.getSnapshot(runId);
    expect([fired.state, fired.context.expiredAt]).toEqual(['expired', deadline]);
    expect((await rt.history(runId)).map((e) => [e.event.type, e.actor])).toEqual([['EXPIRE', 'timer']]);
    await rt.close();
  });

  it('on the system clock, arms no timer Node cannot hold and does not fire early', async () => {
    process.on('warning', onWarning);
    const rt = await createRuntime({ store: memoryStore(), machines, clock: systemClock });
    const now = Date.now();
    const { runId } = await rt.start('timed', { input: { timeoutMs: 40 * DAY, createdAt: now } });
    // A timer armed after the deadline's, for longer than an overflowed one's 1 ms, and the
    // warnings Node emits on the next tick: once it fires, an early deadline would have fired.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rt.flush();
    expect((await rt.getSnapshot(runId)).state).toBe('waiting');
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
    await rt.close();
  });

  it('is re-armed in steps that each read the clock again, and can be cancelled', () => {
    const clock = new ManualClock(START);
    const fired: number[] = [];
    setTimeoutAt(clock, START + 100 * DAY, () => fired.push(clock.now()));
    const cancel = setTimeoutAt(clock, START + 60 * DAY, () => fired.push(-1));
    clock.advance(MAX_TIMEOUT_MS);
    expect(clock.pendingTimers).toBe(2); // each re-armed for the rest of its wait
    cancel();
    clock.set(START + 100 * DAY - 1);
    expect(fired).toEqual([]);
    clock.set(START + 100 * DAY);
    expect(fired).toEqual([START + 100 * DAY]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('past the last date a Date holds is never armed, and the run is told, not the host ended', async () => {
    const clock = new ManualClock(START);
    const logs: LogEntry[] = [];
    const rt = await createRuntime({ store: memoryStore(), machines, clock, onLog: (entry) => logs.push(entry) });
    const { runId } = await rt.start('timed', { input: { timeoutMs: 9e15, createdAt: START } });
    expect(clock.pendingTimers).toBe(0);
    expect(logs).toContainEqual(
      expect.objectContaining({
        runId,
        level: 'warn',
        message: expect.stringMatching(/'EXPIRE' deadline .* it will never fire/),
      }),
    );
    clock.advance(MAX_TIMEOUT_MS + 1);
    await rt.flush();
    expect((await rt.getSnapshot(runId)).state).toBe('waiting');
    await rt.close();
  });
});
