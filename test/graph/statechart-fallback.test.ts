/**
 * A chart ELK cannot lay out is still drawn: the outline drawing, saying on it that it is the
 * simpler one, with every state and transition the view marks. ELK is replaced here by one that
 * refuses every graph, as it refuses a graph it finds inconsistent.
 */
import { describe, expect, it, vi } from 'vitest';
import { chartTransitions } from '../../src/graph/chart-transitions.js';
import { drawStatechart } from '../../src/graph/statechart-svg.js';
import { allStateNodes, stateName } from '../../src/graph/transition-table.js';
import { MACHINE_SHAPES } from './machine-shapes.js';

vi.mock('elkjs/lib/elk.bundled.js', () => ({
  default: class {
    layout(): Promise<never> {
      return Promise.reject(
        new Error('org.eclipse.elk.graph.json.JsonImportException: Referenced shape does not exist'),
      );
    }
  },
}));

describe('a statechart ELK cannot lay out', () => {
  for (const [name, machine] of Object.entries(MACHINE_SHAPES)) {
    it(`draws ${name} as an outline, says why, and keeps every state and arrow`, async () => {
      const drawn = await drawStatechart(machine);
      expect(drawn.fallback).toBe('org.eclipse.elk.graph.json.JsonImportException: Referenced shape does not exist');
      expect(drawn.svg).toContain('<text class="note"');
      expect(drawn.svg).toContain('A simpler drawing');
      for (const node of allStateNodes(machine)) expect(drawn.svg).toContain(`data-state="${stateName(node)}"`);
      for (const edge of chartTransitions(machine)) {
        expect(drawn.svg).toContain(`data-source="${edge.source}" data-target="${edge.target}"`);
        for (const label of edge.labels) expect(drawn.svg).toContain(`>${label}<`);
      }
      // Every arrow has a path of at least two points.
      for (const path of drawn.svg.matchAll(
        /<g class="edge[^"]*"[^>]*>\s*<title>[^<]*<\/title>\s*<path d="([^"]*)"/g,
      )) {
        expect(path[1]!.split(' ').length).toBeGreaterThan(1);
      }
    });
  }
});
