/**
 * `statewright test` on the task lifecycle: paths generated per second, and steps per second driven
 * through the runtime on SQLite with and without a crash at every commit, beside the same paths
 * replayed on plain XState alone (the baseline, timed in alternating rounds). The time to test the
 * task whole, every path with a crash at every commit, follows from the measured rate.
 *
 *   npx tsx bench/testing.bench.ts [--sample 40] [--rounds 3]
 */
import { parseArgs } from 'node:util';
import { createActor, type AnyActorRef } from 'xstate';
import { lifecycles } from '../machines/index.js';
import { everyPath, testLifecycle } from '../src/testing/index.js';
import { interleavedAll, printFigures, printTable } from './measure.js';

const { values } = parseArgs({ options: { sample: { type: 'string' }, rounds: { type: 'string' } } });
const SAMPLE = Number(values.sample ?? 40);
const ROUNDS = Number(values.rounds ?? 3);
const task = lifecycles.task;

const generationStart = performance.now();
const all = everyPath(task, { simplePathLimit: 0, maxPaths: Number.MAX_SAFE_INTEGER });
const generationMs = performance.now() - generationStart;
const sample = all.paths.slice(0, SAMPLE);
const steps = sample.reduce((sum, path) => sum + path.events.length + 1, 0);

const xstateRound = async () => {
  for (const path of sample) {
    const actor: AnyActorRef = createActor(task.machine, { input: path.input });
    actor.start();
    for (const event of path.events) actor.send(event);
    actor.stop();
  }
};

const driven = (crash: boolean) => async () => {
  const test = testLifecycle(task, { name: 'task', crash, simplePathLimit: 0, maxPaths: 1 });
  try {
    for (const path of sample) {
      const result = await test.runPath(path);
      if (result.failure) throw new Error(`task ${path.id} failed: ${result.failure.message}`);
    }
  } finally {
    await test.close();
  }
};

const [baseline, plain, crashed] = await interleavedAll(
  { name: 'plain XState, same paths', opsPerRound: steps, round: xstateRound },
  [
    { name: 'statewright test --no-crash (SQLite)', opsPerRound: steps, round: driven(false) },
    { name: 'statewright test, a crash at every commit (SQLite)', opsPerRound: steps, round: driven(true) },
  ],
  ROUNDS,
);

printTable(`task lifecycle: steps per second over ${SAMPLE} of its paths (${steps} steps)`, baseline!, [
  baseline!,
  plain!,
  crashed!,
]);
const perStepMs = 1000 / crashed!.opsPerSecond;
const allSteps = all.paths.reduce((sum, path) => sum + path.events.length + 1, 0);
printFigures(
  'task lifecycle whole',
  ['what', 'figure'],
  [
    ['paths (shortest, taking every transition)', String(all.paths.length)],
    ['steps', String(allSteps)],
    [
      'path generation',
      `${(generationMs / 1000).toFixed(1)} s (${Math.round(all.paths.length / (generationMs / 1000))} paths/s)`,
    ],
    ['paths per second, a crash at every commit', ((crashed!.opsPerSecond / steps) * SAMPLE).toFixed(1)],
    [
      'whole, a crash at every commit (at the measured rate)',
      `${((allSteps * perStepMs + generationMs) / 60_000).toFixed(1)} min`,
    ],
  ],
);
