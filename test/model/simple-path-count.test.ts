import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { lifecycles } from '../../machines/index.js';
import { simplePathCount, simplePaths } from './harness.js';

describe('counting simple paths without enumerating them', () => {
  it('agrees with xstate/graph on the execution machine', () => {
    const machine = lifecycles.execution.machine;
    const all = simplePaths(machine, { simplePathLimit: Infinity })!;
    expect(all.length).toBeGreaterThan(20);
    expect(simplePathCount(machine, {})).toBe(all.length);
  });

  it('agrees on a machine with cycles and self-loops', () => {
    const machine = createMachine({
      id: 'cycles',
      initial: 'a',
      states: { a: { on: { GO: 'b', STAY: 'a' } }, b: { on: { BACK: 'a', ON: 'c' } }, c: { on: { A: 'a', B: 'b' } } },
    });
    expect(simplePathCount(machine, {})).toBe(simplePaths(machine, { simplePathLimit: Infinity })!.length);
  });

  it('gives up just past the limit, so simplePaths returns undefined instead of building them', () => {
    const machine = lifecycles.execution.machine;
    expect(simplePathCount(machine, {}, 5)).toBe(6);
    expect(simplePaths(machine, { simplePathLimit: 5 })).toBeUndefined();
  });
});
