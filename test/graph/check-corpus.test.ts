/**
 * `statewright check` gives no false verdict on any machine of the foreign corpus (test/foreign/):
 * no correctness rule fails on a state XState reaches, every configuration plain XState settles in
 * along every corpus path is one the check found, and every violation names the lifecycle in words.
 */
import { describe, expect, it } from 'vitest';
import type { StateValue } from 'xstate';
import { checkRegistry } from '../../src/cli/commands/check.js';
import { configurationGraph, statechart } from '../../src/graph/index.js';
import { foreignMachines } from '../foreign/corpus.js';
import { runOnXState } from '../foreign/run-on-xstate.js';

/** What the check finds on the corpus that is true, by lifecycle: each with why. */
const TRUE_FINDINGS: Readonly<Record<string, readonly string[]>> = {
  // XState's own test machine has no transition into on.second.B.Q.
  'shallow-history': ['unreachable on.second.B.Q'],
  // The example rests in `success: {}` for ever, neither final nor left: a run there never finishes.
  fetch: ['no-way-out success'],
  'fetch-failing': ['no-way-out success'],
  // XState's test machine stops in `active: {}`, not final.
  'custom-guard': ['no-way-out active'],
};

/** The configuration a state value names, as the configuration graph does: its leaves in document order, joined with '|'. */
function configurationName(value: StateValue, order: readonly string[]): string {
  const leaves: string[] = [];
  const walk = (at: StateValue, prefix: string) => {
    if (typeof at === 'string') leaves.push(`${prefix}${at}`);
    else for (const [key, inner] of Object.entries(at)) walk(inner as StateValue, `${prefix}${key}.`);
  };
  walk(value, '');
  return leaves.sort((a, b) => order.indexOf(a) - order.indexOf(b)).join('|');
}

describe('statewright check on the foreign corpus', () => {
  for (const entry of foreignMachines) {
    it(`${entry.name}: no false verdict, in words, under its lifecycle's name`, async () => {
      const violations = checkRegistry({ [entry.name]: { machine: entry.machine, version: 1, summary: entry.name } });
      expect(violations.filter((v) => v.severity === 'error').map((v) => `${v.rule} ${v.state}`)).toEqual(
        TRUE_FINDINGS[entry.name] ?? [],
      );
      for (const v of violations) {
        expect(v.machine).toBe(entry.name);
        expect(`${v.path} ${v.message}`).not.toContain('xstate.');
        // XState's name for a machine with no id.
        expect(`${v.path} ${v.message}`).not.toContain('(machine)');
      }
      const model = statechart(entry.machine);
      const order = [...model.states.keys()];
      const resting = new Set([...configurationGraph(model).resting.values()].map((c) => c.name));
      // XState itself cannot persist a child spawned from inline logic, which the corpus run reads.
      if (entry.cannotRestore) return;
      for (const path of entry.paths)
        for (const seen of await runOnXState(entry, path))
          expect(resting, `${path.name}: ${JSON.stringify(seen.value)}`).toContain(
            configurationName(seen.value, order),
          );
    });
  }
});
