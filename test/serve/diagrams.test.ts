/**
 * `GET /api/machines/:name/diagram.svg` of machines of every shape, from a real serve over a
 * config of them: each answers 200 with the statechart ELK laid out, every state in it.
 */
import { describe, expect, it } from 'vitest';
import { allStateNodes, stateName } from '../../src/graph/transition-table.js';
import { MACHINE_SHAPES } from '../graph/machine-shapes.js';
import { authOf, startServeProcess } from '../support/serve-process.js';
import { shapesConfigDir } from '../support/shapes-config.js';

describe("serve's diagram of any machine", () => {
  it('answers 200 with an SVG for a machine of every shape, never the fallback', async () => {
    const dir = shapesConfigDir('serve-diagrams');
    const server = await startServeProcess(dir, ['--create']);
    for (const [name, machine] of Object.entries(MACHINE_SHAPES)) {
      const response = await fetch(`${server.url}/api/machines/${name}/diagram.svg`, { headers: authOf(server.url) });
      const svg = await response.text();
      expect([name, response.status, response.headers.get('content-type')]).toEqual([name, 200, 'image/svg+xml']);
      expect(svg).toMatch(/^<svg [^>]*class="statechart"/);
      for (const node of allStateNodes(machine)) expect(svg, name).toContain(`data-state="${stateName(node)}"`);
      expect(svg, name).not.toContain('class="note"');
    }
    expect(server.stderr()).not.toContain('simpler drawing');
  });
});
