import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { lifecycles } from '../../machines/index.js';
import { visualizationFiles } from '../../src/graph/visualizations.js';
import { diagramModel, toDot, toMermaid } from '../../src/graph/index.js';

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
    expect(model.states).toEqual(['starting', 'running', 'waiting_input', 'completed', 'failed']);
    const changes = model.edges.filter((e) => e.source !== e.target).map((e) => `${e.source} --> ${e.target}`);
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
      'running --> failed : agent.exited [exitedAfterInterrupt], agent.exited [agentExited], INTERRUPT, SESSION_ORPHANED',
    );
    expect(mermaid).toContain('waiting_input --> running : APPROVAL_RESOLVED [resolvesLastPending]');
    expect(mermaid).toContain('starting --> running : agent.session\n');
  });
});
