import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { visualizationFiles } from '../../src/graph/visualizations.js';
import { diagramModel, toDot, toMermaid } from '../../src/graph/index.js';
import { diagramStates } from '../../src/graph/diagram-edges.js';
import { renderSvg } from '../../src/graph/svg.js';
import { allStateNodes, stateName } from '../../src/graph/transition-table.js';
import { MACHINE_SHAPES } from './machine-shapes.js';

describe('the committed diagrams', () => {
  it('match what `npm run viz` renders from the machines now', async () => {
    const stale: string[] = [];
    for (const [file, content] of await visualizationFiles(lifecycles)) {
      const committed = await readFile(new URL(`../../visualizations/${file}`, import.meta.url), 'utf8').catch(
        () => undefined,
      );
      if (committed !== content) stale.push(file);
    }
    expect(stale, 'diagrams out of date with their machines: run `npm run viz` and commit visualizations/').toEqual([]);
  });

  it('render the same bytes twice', async () => {
    const first = await visualizationFiles(lifecycles);
    const second = await visualizationFiles(lifecycles);
    expect([...second]).toEqual([...first]);
  });
});

describe('a diagram of the execution machine', () => {
  const { machine } = lifecycles.execution;

  it('shows the initial state, the final states and every event label in Mermaid', () => {
    const mermaid = toMermaid(machine);
    expect(mermaid).toContain('[*] --> pending');
    for (const final of ['success', 'failed', 'cancelled', 'skipped']) expect(mermaid).toContain(`${final} --> [*]`);
    expect(mermaid).toContain('held --> cancelled : REJECT, EXPIRE, CANCEL');
    expect(mermaid).toContain('recovering --> running : START');
  });

  it('shows the start point, double-circled final states and labelled edges in DOT', () => {
    const dot = toDot(machine);
    expect(dot).toContain('"__initial" -> "pending"');
    expect(dot).toContain('"success" [shape=doublecircle');
    expect(dot).toContain('"cancelling" -> "cancelled" [label="CANCEL_FORCE, COMPLETE"]');
  });
});

describe('a diagram of the session machine', () => {
  const { machine } = lifecycles.session;

  it("draws the seed's seven status transitions between the five states", () => {
    const model = diagramModel(machine);
    expect(diagramStates(model).map((state) => state.path)).toEqual([
      'starting',
      'running',
      'waiting_input',
      'completed',
      'failed',
    ]);
    const changes = model.transitions.filter((e) => e.source !== e.target).map((e) => `${e.source} --> ${e.target}`);
    expect(changes.sort()).toEqual([
      'running --> completed',
      'running --> failed',
      'running --> waiting_input',
      'starting --> failed',
      'starting --> running',
      'waiting_input --> failed',
      'waiting_input --> running',
    ]);
  });

  it('names a guard only where it chooses between branches of one event', () => {
    const mermaid = toMermaid(machine);
    expect(mermaid).toContain('running --> completed : agent.exited [exitedWithResult]');
    expect(mermaid).toContain(
      'running --> failed : agent.exited [exitedAfterApprovalTimeout], agent.exited [exitedAfterInterrupt], agent.exited [agentExited], INTERRUPT [interrupted], SESSION_ORPHANED',
    );
    expect(mermaid).toContain('waiting_input --> running : APPROVAL_RESOLVED [resolvesLastPending]');
    expect(mermaid).toContain('starting --> running : agent.session\n');
  });
});

/** Mermaid's id of a state path, as toMermaid writes it. */
const mermaidId = (path: string) => path.replace(/[^A-Za-z0-9_]/g, '_');

/** Every id a Mermaid diagram declares (a `state` line, a composite, a bare state line) and every id its arrows use. */
function mermaidIds(mermaid: string): { declared: Set<string>; used: Set<string> } {
  const declared = new Set<string>();
  const used = new Set<string>();
  for (const line of mermaid.split('\n').map((l) => l.trim())) {
    const alias = /^state "[^"]*" as (\S+)$/.exec(line) ?? /^state (\S+) \{$/.exec(line) ?? /^(\w+)$/.exec(line);
    if (alias && alias[1] !== 'stateDiagram') declared.add(alias[1]!);
    const arrow = /^(\S+) --> (\S+)/.exec(line);
    // A final state is drawn by its arrow to the end.
    if (arrow?.[2] === '[*]') declared.add(arrow[1]!);
    else if (arrow) for (const id of [arrow[1]!, arrow[2]!]) if (id !== '[*]') used.add(id);
  }
  return { declared, used };
}

describe('Mermaid and DOT diagrams of every shape', () => {
  for (const [name, machine] of Object.entries(MACHINE_SHAPES)) {
    it(`draws ${name} in Mermaid with every state declared and no arrow to a state that is not drawn`, () => {
      const mermaid = toMermaid(machine);
      const { declared, used } = mermaidIds(mermaid);
      for (const node of allStateNodes(machine))
        expect(declared, stateName(node)).toContain(mermaidId(stateName(node)));
      for (const id of used) expect(declared, `${id} in an arrow`).toContain(id);
      expect(mermaid.match(/\{/g)?.length).toBe(mermaid.match(/\}/g)?.length);
      expect(mermaid).not.toContain('xstate.');
      for (const transition of diagramModel(machine).transitions)
        expect(mermaid).toContain(` : ${transition.labels.join(', ')}`);
    });

    it(`draws ${name} in DOT, which Graphviz renders with every state and arrow`, async () => {
      const dot = toDot(machine);
      expect(dot).not.toContain('xstate.');
      const svg = await renderSvg(dot);
      for (const node of allStateNodes(machine)) {
        const box = node.type === 'compound' || node.type === 'parallel';
        expect(svg, stateName(node)).toContain(
          box ? `<title>cluster_${stateName(node)}</title>` : `<title>${stateName(node)}</title>`,
        );
      }
      for (const transition of diagramModel(machine).transitions)
        expect(svg).toContain(`>${transition.labels.join(', ')}</text>`);
    });
  }

  it('draws a parallel state as a composite whose regions are separated, entered as a whole and left when both finish', () => {
    const mermaid = toMermaid(MACHINE_SHAPES.parallelRegions);
    expect(mermaid).toMatch(
      / {2}state checks \{\n {4}state checks_manager \{\n[\s\S]*\n {4}\}\n {4}--\n {4}state checks_finance \{/,
    );
    expect(mermaid).toContain('  draft --> checks : SUBMIT\n');
    expect(mermaid).toContain('  checks --> paid : when both regions of checks finish\n');
    expect(mermaid).toContain('checks_manager_managerApproval --> checks_manager_approved : APPROVE, after 20 s');
    const dot = toDot(MACHINE_SHAPES.parallelRegions);
    expect(dot).toContain('subgraph "cluster_checks" {\n    label="checks"; style="rounded,dashed";');
    expect(dot).toContain('"draft" -> "__anchor:checks" [label="SUBMIT", lhead="cluster_checks"];');
    expect(dot).toContain(
      '"__anchor:checks" -> "paid" [label="when both regions of checks finish", ltail="cluster_checks"];',
    );
  });

  it("draws the machine's own transitions from an 'any state' mark inside its box, and history targets as H and H*", () => {
    const mermaid = toMermaid(MACHINE_SHAPES.rootEvent);
    expect(mermaid).toContain('state "article" as __machine\n');
    expect(mermaid).toContain('    __any___machine --> draft : reset\n');
    expect(toDot(MACHINE_SHAPES.rootEvent)).toContain('"__any:" -> "draft" [label="reset"];');
    expect(toMermaid(MACHINE_SHAPES.rootDelay)).toContain('__any___machine --> ticked : after 1 s');
    const player = toMermaid(MACHINE_SHAPES.historyTargets);
    expect(player).toContain('state "H*" as on_video_resume');
    expect(player).toContain('  off --> on_audio_resume : ON\n');
    expect(toDot(MACHINE_SHAPES.historyTargets)).toContain('"off" -> "on.video.resume" [label="ON"];');
  });
});
