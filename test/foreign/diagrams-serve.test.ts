/**
 * The view's diagram of every hostable corpus machine through `statewright serve`, as a user's
 * config registers them: each answers 200 with the statechart elkjs laid out (not the simpler
 * fallback), every state and every transition in it.
 */
import { expect, it } from 'vitest';
import { chartTransitions } from '../../src/graph/chart-transitions.js';
import { allStateNodes, stateName } from '../../src/graph/transition-table.js';
import { testDir } from '../stores/temp-dir.js';
import { authOf, startServeProcess } from '../support/serve-process.js';
import { writeCorpusConfig } from './corpus-config.js';
import { hostableMachines } from './corpus.js';

it("answers GET /api/machines/:name/diagram.svg with every corpus machine's whole statechart", async () => {
  const dir = testDir('foreign-diagrams');
  writeCorpusConfig(dir);
  const serve = await startServeProcess(dir, []);
  expect(hostableMachines.length).toBeGreaterThanOrEqual(15);
  for (const entry of hostableMachines) {
    const response = await fetch(`${serve.url}/api/machines/${encodeURIComponent(entry.name)}/diagram.svg`, {
      headers: authOf(serve.url),
    });
    const svg = await response.text();
    expect([entry.name, response.status, response.headers.get('content-type')]).toEqual([
      entry.name,
      200,
      'image/svg+xml',
    ]);
    expect(svg, entry.name).not.toContain('class="note"');
    for (const node of allStateNodes(entry.machine))
      expect(svg, entry.name).toContain(`data-state="${stateName(node)}"`);
    for (const arrow of chartTransitions(entry.machine))
      expect(svg, entry.name).toContain(`data-source="${arrow.source}" data-target="${arrow.target}"`);
  }
  expect(serve.stderr()).not.toContain('simpler drawing');
});
