/**
 * The lifecycles' shared behaviour suite (test/model) on a Restate node: every transition of every
 * built-in lifecycle replayed through `restateRuntime` against the run objects, each step's state
 * checked as the every-path suite checks it on the stores; and in every reachable state, every event
 * outside the seed's table refused with `InvalidTransitionError` and nothing committed. The paths
 * are the fewest of the transition-covering ones that still take every transition they take (the
 * session's 47,360 steps become 61, the task's 18,433 become 280): each step is a call to a server.
 * The clocks are manual (as in the every-path suite), so no deadline fires unless a path sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { eventTypes, InvalidTransitionError, leafStates, stateName, transitionTable } from '../../src/graph/index.js';
import { leafName, replayAll, takenEdges, transitionCoveringPaths, type ModelPath } from '../model/harness.js';
import { lifecycleModels } from '../model/lifecycles/index.js';
import { modelInputs } from '../model/lifecycles/model.js';
import { runtimeDriver } from '../model/runtime-driver.js';
import { startRestateHost, type RestateHost } from './restate-host.js';

let host: RestateHost;

beforeAll(async () => {
  host = await startRestateHost({ machines: lifecycles, clock: new ManualClock() });
}, 120_000);

afterAll(async () => {
  await host?.stop();
});

describe.each(Object.keys(lifecycles) as LifecycleName[])('lifecycle %s on Restate', { timeout: 300_000 }, (name) => {
  const machine = lifecycles[name].machine;
  const model = lifecycleModels[name];
  const inputs = modelInputs(model);
  const runs = inputs.map((input) => {
    const initial = createActor(machine, { input }).getSnapshot();
    const all = transitionCoveringPaths(machine, { samples: model.samples, input, contextKey: model.contextKey });
    return { input, initial, all, paths: fewestCovering(all, initial) };
  });

  it('replays paths that take every transition the transition-covering paths take', () => {
    for (const run of runs) expect(takenEdges(run.paths, run.initial)).toEqual(takenEdges(run.all, run.initial));
  });

  it('reaches the predicted state after every step of the covering paths', async () => {
    for (const run of runs)
      expect(await replayAll(run.paths, () => runtimeDriver(host.runtime, name, run.input))).toEqual([]);
  });

  it('refuses, and does not commit, every event outside the table in every reachable state', async () => {
    const accepted = new Set(transitionTable(machine).map((r) => `${r.source} ${r.event}`));
    const events = eventTypes(machine);
    const reached = new Set<string>();
    for (const { input, paths } of runs) {
      for (const path of paths) {
        if (path.steps.every((step) => reached.has(leafName(step.state)))) continue;
        const driver = runtimeDriver(host.runtime, name, input);
        await driver.start();
        for (const [index, step] of path.steps.entries()) {
          if (index > 0) await driver.send(step.event);
          const state = leafName(step.state);
          if (reached.has(state)) continue;
          reached.add(state);
          const seq = (await host.runtime.getSnapshot(driver.runId)).seq;
          for (const type of events.filter((e) => !accepted.has(`${state} ${e}`)))
            await expect(host.runtime.dispatch(driver.runId, { type }), `${state} + ${type}`).rejects.toBeInstanceOf(
              InvalidTransitionError,
            );
          expect((await host.runtime.getSnapshot(driver.runId)).seq).toBe(seq);
        }
      }
    }
    expect(reached).toEqual(new Set(leafStates(machine).map(stateName)));
  });
});

/** Greedily, the paths taking the most transitions not yet taken per step, until no path adds one. */
function fewestCovering(paths: readonly ModelPath[], initial: AnyMachineSnapshot): ModelPath[] {
  const taken = new Set<string>();
  const rest = paths.map((path) => ({ path, edges: [...takenEdges([path], initial)] }));
  const chosen: ModelPath[] = [];
  for (;;) {
    let best: (typeof rest)[number] | undefined;
    let bestScore = 0;
    for (const candidate of rest) {
      const score = candidate.edges.filter((edge) => !taken.has(edge)).length / candidate.path.steps.length;
      if (score > bestScore) [best, bestScore] = [candidate, score];
    }
    if (!best) return chosen;
    chosen.push(best.path);
    for (const edge of best.edges) taken.add(edge);
    rest.splice(rest.indexOf(best), 1);
  }
}
