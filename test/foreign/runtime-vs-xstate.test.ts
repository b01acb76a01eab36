/**
 * Every corpus machine, on every path, through statewright's runtime on SQLite and through plain
 * XState with the same events: the state value, context, children, status and output equal after
 * every step; then again with the runtime closed and its run restored from the store after every
 * step, to the same end; each run, both ways, verified at its end (its log replays to what the store
 * holds). A machine statewright cannot restore (a child spawned from inline logic) has
 * the step that spawns refused with the fix, the run unchanged and taking events after a restore.
 */
import { isDeepStrictEqual as isDeepEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InlineChildError } from '../../src/runtime/index.js';
import { leafStates, stateName } from '../../src/graph/transition-table.js';
import { testDir } from '../stores/temp-dir.js';
import { describeStep, foreignMachines, hostableMachines, type Shape, type Step } from './corpus.js';
import { configurations } from './false-verdicts.js';
import { notYet } from './not-yet.js';
import { RuntimeRun, runOnRuntime } from './run-on-runtime.js';
import { runOnXState } from './run-on-xstate.js';

/** What each step is, for a failure message that names it. */
const stepNames = (steps: readonly Step[]) => ['start', ...steps.map(describeStep)];

describe('the foreign corpus', () => {
  it('has at least 17 machines taken from public projects, each with its origin and licence', () => {
    const foreign = foreignMachines.filter((entry) => !entry.origin.startsWith('statewright'));
    expect(foreign.length).toBeGreaterThanOrEqual(17);
    for (const entry of foreignMachines) {
      expect(entry.origin, entry.name).toMatch(/\S/);
      expect(entry.licence, entry.name).toMatch(/\S/);
      expect(entry.paths.length, entry.name).toBeGreaterThan(0);
    }
    expect(new Set(foreignMachines.map((entry) => entry.name)).size).toBe(foreignMachines.length);
  });

  it('covers every shape of XState the issue lists', () => {
    const covered = new Set<Shape>(foreignMachines.flatMap((entry) => entry.shapes));
    const wanted: Shape[] = [
      'parallel regions',
      'deep history',
      'shallow history',
      'always',
      'guard with params',
      'after (named delay)',
      'after (numeric delay)',
      'root after',
      'root on',
      'invoked promise',
      'invoked callback',
      'invoked observable',
      'invoked machine',
      'spawned by name',
      'spawned from inline logic',
      'sendTo',
      'sendParent',
      'forwardTo',
      'onSnapshot',
      "'*' wildcard",
      'input',
      'output',
    ];
    expect(wanted.filter((shape) => !covered.has(shape))).toEqual([]);
  });
});

/**
 * The states no corpus path shows XState resting in, and why: passed within one step (an `always`, a
 * region's final state whose parallel parent finishes at once), or one its machine gives no way into.
 */
const notShown: Readonly<Record<string, readonly string[]>> = {
  'parallel-execution': ['ParallelExec.LongDelayBranch.done'], // the last branch done finishes the parallel state at once
  'filling-water': ['CheckIfFull'], // left by `always` in the step that enters it
  'donut-maker': ['directions.mix.mixDry.mixed', 'directions.allMixed'], // the second region done: onDone at once
  'shallow-history': ['on.second.B.Q'], // the test's machine has no transition into it
  fetch: ['failure'], // fetch-failing's paths take it
  'fetch-failing': ['success'], // fetch's path takes it
};

describe('the corpus paths', () => {
  it.each(foreignMachines.map((entry) => [entry.name, entry] as const))(
    'show every state of the machine on plain XState: %s',
    async (_, entry) => {
      const shown = new Set((await configurations(entry)).flat(2));
      const states = leafStates(entry.machine).map(stateName);
      expect(states.filter((state) => !shown.has(state))).toEqual(notShown[entry.name] ?? []);
    },
  );
});

describe.each(hostableMachines.map((entry) => [entry.name, entry] as const))('%s', (_, entry) => {
  const paths = (restored: boolean) =>
    entry.paths.map((path) => [path.name, path, notYet(entry, path, restored ? 'restored' : 'runtime')] as const);

  it.each(paths(false).filter(([, , not]) => not === undefined))(
    'on the runtime as on plain XState, and verify passes the run: %s',
    async (_, path) => {
      const expected = await runOnXState(entry, path);
      const { seen, verification } = await runOnRuntime(testDir('foreign'), entry, path);
      const names = stepNames(path.steps);
      expect(seen.map((s, i) => ({ step: names[i], ...s }))).toEqual(
        expected.map((s, i) => ({ step: names[i], ...s })),
      );
      expect(verification.mismatches).toEqual([]);
      expect(verification.ok).toBe(true);
    },
  );

  it.each(paths(true).filter(([, , not]) => not === undefined))(
    'restored from the store after every step, as on plain XState, and verify passes the run: %s',
    async (_, path) => {
      const expected = await runOnXState(entry, path);
      const { seen, verification } = await runOnRuntime(testDir('foreign'), entry, path, { restore: true });
      const names = stepNames(path.steps);
      expect(seen.map((s, i) => ({ step: names[i], ...s }))).toEqual(
        expected.map((s, i) => ({ step: names[i], ...s })),
      );
      expect(verification.mismatches).toEqual([]);
      expect(verification.ok).toBe(true);
    },
  );

  it.skip.each(
    [...paths(false), ...paths(true)].flatMap(([name, , not]) => (not === undefined ? [] : [[name, not] as const])),
  )('not yet as on plain XState: %s (%s)', () => {});
});

describe.each(foreignMachines.filter((entry) => entry.cannotRestore !== undefined).map((e) => [e.name, e] as const))(
  '%s, which statewright cannot restore',
  (_, entry) => {
    it.each(entry.paths.map((path) => [path.name, path] as const))(
      'has the step that spawns from inline logic refused with the fix, the run unchanged and still taking events after a restore: %s',
      async (_, path) => {
        const run = await RuntimeRun.start(testDir('foreign-refused'), entry, path);
        try {
          const refused: Array<{ step: string; error: unknown; unchanged: boolean }> = [];
          for (const step of path.steps) {
            if (!('send' in step)) throw new Error('a refused path moves no clock');
            const before = await run.seen();
            const error = await run.runtime.dispatch(run.runId, step.send).then(
              () => undefined,
              (reason: unknown) => reason,
            );
            if (error !== undefined)
              refused.push({ step: describeStep(step), error, unchanged: isDeepEqual(before, await run.seen()) });
          }
          expect(refused).toHaveLength(1);
          const [{ error, unchanged }] = refused as [(typeof refused)[number]];
          expect(error).toBeInstanceOf(InlineChildError);
          expect(error).toMatchObject({ kind: 'setup', runId: run.runId });
          expect((error as Error).message).toMatch(/from inline logic.*setup\(\{ actors: .*spawn it by that name/s);
          expect(unchanged).toBe(true);
          const restored = await run.restore();
          const first = path.steps[0]!;
          if (!('send' in first)) throw new Error('a refused path moves no clock');
          await run.runtime.dispatch(run.runId, first.send);
          expect((await run.seen()).value).toEqual(restored.value);
        } finally {
          await run.close();
        }
      },
    );
  },
);
