import { it } from 'vitest';
import { type AnyStateMachine } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { transitionCoveringPaths } from './harness.js';
import { lifecycleModels } from './lifecycles/index.js';
import { modelInputs } from './lifecycles/model.js';
import { commitBoundaries } from './commit-boundaries.js';
it("counts", { timeout: 200_000 }, () => {
  for (const name of Object.keys(lifecycles) as LifecycleName[]) {
    const machine: AnyStateMachine = lifecycles[name].machine;
    const model = lifecycleModels[name];
    const t = performance.now();
    const runs = modelInputs(model).map((input) => ({ input, paths: transitionCoveringPaths(machine, { samples: model.samples, input, contextKey: model.contextKey }) }));
    const t2 = performance.now();
    const b = commitBoundaries(machine, runs);
    const depth = b.reduce((s, x) => s + x.commit, 0);
    const cont = b.reduce((s, x) => s + x.plan.rounds.length - 1 - x.commit, 0);
    console.log(name, b.length, { depth, cont, maxk: Math.max(...b.map((x) => x.commit)), paths: Math.round(t2 - t), plan: Math.round(performance.now() - t2) });
  }
});
