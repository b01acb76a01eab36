import { expect, it } from 'vitest';
import { LimitedWarnings } from '../../src/actors/limited-warnings.js';

function limited(options = {}) {
  let now = 0;
  const logged: Array<{ message: string; data: Record<string, unknown> }> = [];
  const warnings = new LimitedWarnings(
    (message, data) => logged.push({ message, data }),
    () => now,
    options,
  );
  return { warnings, logged, advance: (ms: number) => (now += ms) };
}

it('logs the first warnings one by one and counts the rest, logged once at the end', () => {
  const { warnings, logged } = limited({ first: 2 });
  for (let line = 0; line < 10; line++) warnings.warn(`line ${line} ignored`, { offset: line });
  expect(logged.map((l) => l.message)).toEqual(['line 0 ignored', 'line 1 ignored']);
  warnings.flush();
  expect(logged.slice(2)).toEqual([
    {
      message:
        "8 more warnings about the agent's output were counted, not logged (10 in all); the latest: line 9 ignored",
      data: { offset: 9, unlogged: 8, total: 10 },
    },
  ]);
  // Nothing new since: nothing more to log.
  warnings.flush();
  expect(logged).toHaveLength(3);
});

it('logs the count at most once per interval while warnings go on', () => {
  const { warnings, logged, advance } = limited({ first: 1, intervalMs: 1000 });
  warnings.warn('first');
  // A warning every 100 ms for 3.5 s after the first: a count every second, not a line each.
  for (let step = 0; step < 35; step++) {
    advance(100);
    warnings.warn(`warning ${step}`);
  }
  const counts = logged.slice(1).map((l) => l.data.unlogged);
  expect(counts).toEqual([11, 10, 10]);
  warnings.flush();
  expect(logged.at(-1)!.data).toMatchObject({ unlogged: 4, total: 36 });
});
