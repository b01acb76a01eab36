import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { transitionTable } from '../../src/graph/index.js';
import { machineEdges, takenEdges, transitionCoveringPaths } from './harness.js';

// Paused from P.a or P.b, the run goes through Q and R, which look the same either way; only what
// P's history recorded tells the two apart, and only it leads back to the right one.
const paused = createMachine({
  id: 'paused',
  initial: 'P',
  states: {
    P: {
      initial: 'a',
      on: { PAUSE: 'Q' },
      states: { hist: { type: 'history' }, a: { on: { NEXT: 'b' } }, b: {} },
    },
    Q: { on: { STEP: 'R' } },
    R: { on: { RESUME: 'P.hist' } },
  },
});

describe('the harness on a machine with a history state', () => {
  it('lists every state a history target may restore as an edge', () => {
    expect(transitionTable(paused).filter((r) => r.event === 'RESUME')).toEqual([
      { source: 'R', event: 'RESUME', target: 'P.a' },
      { source: 'R', event: 'RESUME', target: 'P.b' },
    ]);
  });

  it('tells states apart by what their history recorded, so the paths take every way back', () => {
    const paths = transitionCoveringPaths(paused);
    const initial = createActor(paused).getSnapshot();
    expect([...machineEdges(paused)].filter((edge) => !takenEdges(paths, initial).has(edge))).toEqual([]);
  });
});
