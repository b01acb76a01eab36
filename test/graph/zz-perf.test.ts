import { it } from 'vitest';
import { createMachine } from 'xstate';
import { configurationGraph, statechart } from '../../src/graph/index.js';
it('perf', () => {
  for (const n of [8, 10, 12, 15]) {
    const states: Record<string, object> = {};
    for (let i = 0; i < n; i++)
      states[`r${i}`] = { initial: 'a', states: { a: { on: { [`T${i}`]: 'b' } }, b: { on: { [`T${i}`]: 'a' } } } };
    const m = createMachine({ type: 'parallel', states });
    const t = performance.now();
    const g = configurationGraph(statechart(m));
    console.log(n, g.resting.size, g.complete, Math.round(performance.now() - t), 'ms');
  }
});
