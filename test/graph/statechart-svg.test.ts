import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { lifecycles } from '../../machines/index.js';
import { chartEventLabel, chartTransitions } from '../../src/graph/chart-transitions.js';
import { layoutStatechart } from '../../src/graph/statechart-layout.js';
import { drawStatechart, renderStatechart } from '../../src/graph/statechart-svg.js';
import { allStateNodes, stateName, transitionTable } from '../../src/graph/transition-table.js';
import { MACHINE_SHAPES } from './machine-shapes.js';

/** A machine's arrows without the event types behind their labels. */
const arrows = (machine: Parameters<typeof chartTransitions>[0]) =>
  chartTransitions(machine).map(({ events: _events, ...arrow }) => arrow);

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
    for (const row of transitionTable(machine)) expect(svg).toContain(`>${chartEventLabel(machine, row.event)}`);
  });

  it('draws an arrow with a path for every transition, from the state that defines it', async () => {
    const layout = await layoutStatechart(machine);
    const edges = chartTransitions(machine);
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

describe('a statechart of every shape', () => {
  for (const [name, machine] of Object.entries(MACHINE_SHAPES)) {
    it(`lays out ${name} with ELK, every state a <g> in its parent's, every transition an arrow`, async () => {
      const layout = await layoutStatechart(machine);
      const drawn = await drawStatechart(machine);
      expect(drawn.fallback).toBeUndefined();
      const groups = stateGroups(drawn.svg);
      const nodes = allStateNodes(machine);
      const rootBox = groups.has('');
      for (const node of nodes) {
        const parent = node.parent === machine.root ? (rootBox ? '' : undefined) : stateName(node.parent!);
        expect(groups.get(stateName(node))?.parent, stateName(node)).toBe(parent);
      }
      const transitions = chartTransitions(machine);
      const arrows = layout.edges.filter((edge) => !edge.source.startsWith('__initial'));
      expect(arrows.map((edge) => `${edge.source}->${edge.target}`)).toEqual(
        transitions.map((edge) => `${edge.source}->${edge.target}`),
      );
      for (const edge of layout.edges) expect(edge.points.length, `${edge.source}->${edge.target}`).toBeGreaterThan(1);
      for (const transition of transitions) {
        for (const label of transition.labels) expect(drawn.svg).toContain(`>${label}<`);
      }
    });
  }

  it("draws the machine's root as a box when the root has transitions, its arrows leaving it", async () => {
    const svg = await renderStatechart(MACHINE_SHAPES.rootEvent);
    expect(stateGroups(svg).get('')).toMatchObject({
      parent: undefined,
      classes: expect.arrayContaining(['compound']),
    });
    expect(svg).toContain('data-source="" data-target="draft"');
    expect(svg).toMatch(/<text class="name"[^>]*>article<\/text>/);
    // A root `after` and `always` each an arrow of its own.
    const ticker = arrows(MACHINE_SHAPES.rootDelay);
    // Each label keeps the event it stands for.
    expect(chartTransitions(MACHINE_SHAPES.rootDelay)).toContainEqual(
      expect.objectContaining({ source: '', target: 'ticked', events: ['xstate.after.1000.ticker'] }),
    );
    expect(ticker).toContainEqual({ source: '', target: 'ticked', labels: ['after 1 s'], internal: false });
    expect(ticker).toContainEqual({ source: 'ticked', target: 'idle', labels: ['always'], internal: false });
    // No root box where the root has none.
    expect(stateGroups(await renderStatechart(lifecycles.task.machine)).has('')).toBe(false);
  });

  it('draws arrows into history states in two regions, and out of a region across its parallel border', async () => {
    const player = arrows(MACHINE_SHAPES.historyTargets);
    expect(player.filter((edge) => edge.source === 'off').map((edge) => edge.target)).toEqual([
      'on.audio.resume',
      'on.video.resume',
    ]);
    const svg = await renderStatechart(MACHINE_SHAPES.historyTargets);
    expect(svg).toContain('data-source="off" data-target="on.video.resume"');
    expect(stateGroups(svg).get('on.video.resume')?.classes).toContain('history');
    expect(svg).toContain('>H*</text>');
    const expense = arrows(MACHINE_SHAPES.parallelRegions);
    expect(expense).toContainEqual(
      expect.objectContaining({ source: 'checks.manager.managerApproval', target: 'draft' }),
    );
    expect(expense).toContainEqual({
      source: 'checks',
      target: 'paid',
      labels: ['when both regions of checks finish'],
      internal: false,
    });
    expect(expense).toContainEqual(
      expect.objectContaining({ source: 'checks.manager.managerApproval', labels: ['APPROVE', 'after 20 s'] }),
    );
  });

  it('draws invoked done and error, a targetless transition on its own state, and the guards of branches', () => {
    const profile = arrows(MACHINE_SHAPES.invokedActor);
    expect(profile).toContainEqual({
      source: 'loading',
      target: 'shown',
      labels: ['when fetchUser is done'],
      internal: false,
    });
    expect(profile).toContainEqual({
      source: 'loading',
      target: 'failed',
      labels: ['when fetchUser fails'],
      internal: false,
    });
    expect(profile).toContainEqual({ source: 'shown', target: 'shown', labels: ['PING', 'TOUCH'], internal: true });
    expect(profile).toContainEqual({ source: 'shown', target: 'shown.reading', labels: ['RESTART'], internal: false });
    expect(profile).toContainEqual({
      source: 'shown.reading',
      target: 'shown.editing',
      labels: ['EDIT [isAdmin]'],
      internal: false,
    });
  });

  it('sets parallel regions side by side when laid out left to right', async () => {
    const layout = await layoutStatechart(MACHINE_SHAPES.historyTargets);
    const on = layout.states.find((state) => state.path === 'on')!;
    const [audio, video] = on.children;
    const [left, right] = audio!.x < video!.x ? [audio!, video!] : [video!, audio!];
    expect(left.x + left.width).toBeLessThanOrEqual(right.x);
  });
});

describe('the events a chart draws quietly', () => {
  const quiet = (type: string) => type.startsWith('agent.') || type.startsWith('xstate.');

  it('folds them into one muted line per arrow, naming each in its tooltip, the others drawn as they are', async () => {
    const session = lifecycles.session.machine;
    const person = new Set(['INTERRUPT', 'APPROVAL_RESOLVED']);
    const svg = (await drawStatechart(session, { quiet: (type) => !person.has(type) })).svg;
    const all = await renderStatechart(session);
    // Fewer lines, none an agent's event, a muted line per folded arrow with its events in data-quiet.
    const lines = (text: string) => text.match(/<text[^>]*>[^<]*<\/text>/g)!.length;
    expect(lines(svg)).toBeLessThan(lines(all));
    expect(svg).not.toMatch(/>agent\.assistant</);
    expect(all).toMatch(/>agent\.assistant</);
    expect(svg).toMatch(/<text class="quiet"[^>]*>\+\d+ internal events<\/text>/);
    expect(svg).toMatch(/data-quiet="[^"]*agent\.assistant/);
    expect(svg).toMatch(/<title>running-&gt;running: [^<]*agent\.assistant/);
    // INTERRUPT, a person's, stays a line of its own.
    expect(svg).toMatch(/>INTERRUPT \[interrupted\]</);
  });

  it('keeps a single quiet label as it is, muted, and dashes an arrow that has no other', async () => {
    const machine = createMachine({
      id: 'job',
      initial: 'running',
      states: {
        running: { on: { 'agent.exited': 'done', STOP: 'done', 'agent.note': 'running', 'agent.ping': 'running' } },
        done: { type: 'final' },
      },
    });
    const svg = (await drawStatechart(machine, { quiet })).svg;
    expect(svg).toMatch(
      /<g class="edge quiet" data-source="running" data-target="running" data-quiet="agent.note\nagent.ping">/,
    );
    expect(svg).toMatch(/<text class="quiet"[^>]*>2 internal events<\/text>/);
    expect(svg).toMatch(/<text[^>]*>STOP<\/text>\s*<text class="quiet"[^>]*>agent\.exited<\/text>/);
    // Left out, nothing is folded: the committed visualizations do not change.
    expect((await drawStatechart(machine)).svg).not.toContain('quiet"');
  });
});
