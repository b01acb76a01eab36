import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { lifecycles } from '../../machines/index.js';
import { eventLabel, layoutStatechart, statechartEdges } from '../../src/graph/statechart-layout.js';
import { renderStatechart } from '../../src/graph/statechart-svg.js';
import { allStateNodes, stateName, transitionTable } from '../../src/graph/transition-table.js';

/** Each `<g data-state>` of the SVG with the nearest `<g data-state>` around it, and its classes. */
function stateGroups(svg: string): Map<string, { parent: string | undefined; classes: string[] }> {
  const groups = new Map<string, { parent: string | undefined; classes: string[] }>();
  const stack: Array<string | undefined> = [];
  for (const tag of svg.matchAll(/<g\b([^>]*)>|<\/g>/g)) {
    if (tag[0] === '</g>') {
      stack.pop();
      continue;
    }
    const state = /data-state="([^"]*)"/.exec(tag[1]!)?.[1];
    if (state !== undefined) {
      const parent = stack.findLast((entry) => entry !== undefined);
      groups.set(state, { parent, classes: /class="([^"]*)"/.exec(tag[1]!)![1]!.split(' ') });
    }
    stack.push(state);
  }
  return groups;
}

describe('the task machine drawn as a statechart', () => {
  const { machine } = lifecycles.task;

  it("nests every state's <g> inside its parent's, as the machine's state tree does", async () => {
    const groups = stateGroups(await renderStatechart(machine));
    const nodes = allStateNodes(machine);
    expect([...groups.keys()].sort()).toEqual(nodes.map(stateName).sort());
    for (const node of nodes) {
      const parent = node.parent === machine.root ? undefined : stateName(node.parent!);
      expect(groups.get(stateName(node))?.parent, stateName(node)).toBe(parent);
      expect(groups.get(stateName(node))?.classes).toEqual(expect.arrayContaining(['state', node.type]));
    }
    expect(groups.get('Active.Working.Checking.Running')?.parent).toBe('Active.Working.Checking');
    expect(groups.get('Active.Working.Checking')?.classes).toContain('compound');
  });

  it('marks the initial states with start dots and arrows, and every event as a label', async () => {
    const svg = await renderStatechart(machine);
    const compounds = allStateNodes(machine).filter((node) => node.type === 'compound');
    // One start dot for the machine and one inside each compound state, each with its arrow.
    expect(svg.match(/class="initial-dot"/g)).toHaveLength(compounds.length + 1);
    expect(svg).toContain('data-source="__initial" data-target="Idle"');
    for (const compound of compounds) {
      expect(svg).toContain(
        `data-source="__initial:${stateName(compound)}" data-target="${stateName(compound.initial!.target[0]!)}"`,
      );
    }
    for (const row of transitionTable(machine)) expect(svg).toContain(`>${eventLabel(row.event)}`);
  });

  it('draws an arrow with a path for every transition, from the state that defines it', async () => {
    const layout = await layoutStatechart(machine);
    const edges = statechartEdges(machine);
    expect(layout.edges.filter((edge) => !edge.source.startsWith('__initial'))).toHaveLength(edges.length);
    for (const edge of layout.edges) expect(edge.points.length, `${edge.source}->${edge.target}`).toBeGreaterThan(1);
    // `lease_expired` is Active's: one arrow from its box, not one from each of its leaves.
    expect(edges).toContainEqual(expect.objectContaining({ source: 'Active', target: 'AwaitingHuman' }));
    expect(edges.some((edge) => edge.source.startsWith('Active.') && edge.labels.includes('lease_expired'))).toBe(
      false,
    );
  });

  it('renders the same bytes twice', async () => {
    expect(await renderStatechart(machine)).toBe(await renderStatechart(machine));
  });
});

describe('a statechart with final and parallel states', () => {
  const machine = createMachine({
    id: 'build',
    initial: 'running',
    states: {
      running: {
        type: 'parallel',
        on: { CANCEL: 'cancelled' },
        states: {
          compile: { initial: 'busy', states: { busy: { on: { OK: 'done' } }, done: { type: 'final' } } },
          lint: { initial: 'busy', states: { busy: { on: { CLEAN: 'done' } }, done: { type: 'final' } } },
        },
        onDone: 'shipped',
      },
      shipped: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });

  it('draws final states with a double border and parallel regions side by side', async () => {
    const svg = await renderStatechart(machine);
    const groups = stateGroups(svg);
    expect(groups.get('running')?.classes).toContain('parallel');
    expect(groups.get('running.lint.done')).toMatchObject({
      parent: 'running.lint',
      classes: expect.arrayContaining(['final']),
    });
    expect(svg.match(/<rect class="inner"/g)).toHaveLength(4);
    const layout = await layoutStatechart(machine);
    const [compile, lint] = layout.states.find((state) => state.path === 'running')!.children;
    // Side by side: one region ends left of where the other starts, and they share rows.
    const [left, right] = compile!.x < lint!.x ? [compile!, lint!] : [lint!, compile!];
    expect(left.x + left.width).toBeLessThanOrEqual(right.x);
    expect(left.y).toBeLessThan(right.y + right.height);
    for (const event of ['CANCEL', 'OK', 'CLEAN']) expect(svg).toContain(`>${event}<`);
  });
});
