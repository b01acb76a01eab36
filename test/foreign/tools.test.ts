/**
 * What statewright says about the corpus machines, held against what plain XState does with them:
 * `check` gives no verdict a corpus path disproves (and the lint rules only warn, as for any
 * lifecycle not declared strict); `verify` passes every healthy run; neither `explain`, the
 * history nor a refusal of `send` names an XState event along any path (person-reads.ts); every
 * diagram (DOT through Graphviz, Mermaid, the view's SVG) is drawn with every state. What is not yet
 * so is listed in not-yet.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkRegistry } from '../../src/cli/commands/check.js';
import { chartTransitions } from '../../src/graph/chart-transitions.js';
import { toDot, toMermaid } from '../../src/graph/index.js';
import { drawStatechart } from '../../src/graph/statechart-svg.js';
import { renderSvg } from '../../src/graph/svg.js';
import { allStateNodes } from '../../src/graph/transition-table.js';
import { verifyRun } from '../../src/runtime/index.js';
import { testDir } from '../stores/temp-dir.js';
import { describeStep, foreignMachines, hostableMachines } from './corpus.js';
import { falseVerdicts } from './false-verdicts.js';
import { notYet } from './not-yet.js';
import { personReads } from './person-reads.js';
import { corpusLifecycles, RuntimeRun } from './run-on-runtime.js';

/** XState's own event and actor names (`xstate.after.500.m.s`, `xstate.done.actor.0.m.s`). */
const XSTATE_NAME = /xstate\.[\w.*$:-]+/g;

describe('check', () => {
  it.each(
    foreignMachines
      .filter((entry) => notYet(entry, undefined, 'check') === undefined)
      .map((entry) => [entry.name, entry] as const),
  )('gives no verdict a corpus path disproves, each under the lifecycle name and in words: %s', async (_, entry) => {
    const violations = checkRegistry(corpusLifecycles([entry]));
    expect(violations.every((violation) => violation.machine === entry.name)).toBe(true);
    expect(await falseVerdicts(entry, violations)).toEqual([]);
    const said = violations.map((violation) => `${violation.path} ${violation.message}`).join('\n');
    expect(said.match(XSTATE_NAME) ?? []).toEqual([]);
  });

  it("passes the issue's article and its parallel checks: the lint rules only warn, as the lifecycles are not strict", () => {
    const issues = foreignMachines.filter((entry) => entry.name === 'article' || entry.name === 'expense-checks');
    const violations = checkRegistry(corpusLifecycles(issues));
    expect(violations.filter((violation) => violation.severity === 'error')).toEqual([]);
    expect(violations.map((violation) => violation.rule)).toContain('waits-without-deadline');
  });

  it.skip.each(
    foreignMachines.flatMap((entry) => {
      const not = notYet(entry, undefined, 'check');
      return not === undefined ? [] : [[entry.name, not] as const];
    }),
  )('not yet without a false verdict: %s (%s)', () => {});
});

const runs = hostableMachines.flatMap((entry) => entry.paths.map((path) => ({ entry, path })));

describe.each(runs.map((run) => [`${run.entry.name}: ${run.path.name}`, run] as const))('%s', (_, { entry, path }) => {
  const verifies = notYet(entry, path, 'verify');
  const explains = notYet(entry, path, 'explain');

  it.skipIf(verifies !== undefined && explains !== undefined)(
    'explain, the history and a refusal name no XState event at any step, and verify passes the run at its end',
    async () => {
      const run = await RuntimeRun.start(testDir('foreign-tools'), entry, path);
      try {
        const said: string[] = [];
        const explain = async (at: string) => {
          for (const text of await personReads(run, entry)) said.push(`${at}: ${text}`);
        };
        await explain('start');
        for (const step of path.steps) {
          await run.step(step);
          await explain(describeStep(step));
        }
        if (explains === undefined) expect(said.join('\n').match(XSTATE_NAME) ?? []).toEqual([]);
        if (verifies === undefined) {
          const verification = await verifyRun(run.runtime.store, run.runtime.machines, run.runId);
          expect(verification.mismatches).toEqual([]);
          expect(verification.ok).toBe(true);
        }
      } finally {
        await run.close();
      }
    },
  );

  it.skipIf(verifies === undefined)(`not yet verified: ${verifies}`, () => {});
  it.skipIf(explains === undefined)(`not yet explained without XState's names: ${explains}`, () => {});
});

describe('the diagrams', () => {
  it.each(foreignMachines.map((entry) => [entry.name, entry] as const))(
    "DOT (drawn by Graphviz), Mermaid and the view's SVG each draw every state, in words: %s",
    async (_, entry) => {
      const states = allStateNodes(entry.machine).map((node) => node.key);
      const drawn = await drawStatechart(entry.machine);
      expect(drawn.fallback).toBeUndefined();
      const dot = toDot(entry.machine);
      const diagrams = { dot, graphviz: await renderSvg(dot), mermaid: toMermaid(entry.machine), svg: drawn.svg };
      for (const [name, text] of Object.entries(diagrams)) {
        expect(
          states.filter((state) => !text.includes(state)),
          `${name} leaves out`,
        ).toEqual([]);
        expect(text.match(XSTATE_NAME) ?? [], `${name} says`).toEqual([]);
      }
      // Every transition is an arrow with its labels in each: none left out, none drawn to nowhere.
      for (const arrow of chartTransitions(entry.machine)) {
        const label = arrow.labels.join(', ');
        const escaped = label.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
        expect(drawn.svg, `svg: ${arrow.source} -> ${arrow.target}`).toContain(
          `data-source="${arrow.source}" data-target="${arrow.target}"`,
        );
        expect(diagrams.graphviz, `graphviz: ${label}`).toContain(`>${escaped}</text>`);
        expect(diagrams.mermaid, `mermaid: ${label}`).toContain(` : ${label}\n`);
      }
    },
  );
});
