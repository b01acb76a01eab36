import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { actorDriver } from './actor-driver.js';
import { edgeKey, machineEdges, replayAll, transitionCoveringPaths, type StepFailure } from './harness.js';
import { lifecycleModels } from './lifecycles/index.js';
import { modelInputs } from './lifecycles/model.js';
import { mutateOneTransition } from './mutate.js';

// Replays every path of a mutated machine: seconds at rest, tens of seconds with both cores busy.
describe.each(Object.keys(lifecycles) as LifecycleName[])(
  'the harness on a mutated %s machine',
  { timeout: 120_000 },
  (name) => {
    const { machine } = lifecycles[name];
    const model = lifecycleModels[name];
    const { mutant, source, event, from, to } = mutateOneTransition(machine);

    it('reports the step where the mutant leaves the modelled path', async () => {
      const failures: StepFailure[] = [];
      for (const input of modelInputs(model)) {
        const paths = transitionCoveringPaths(machine, { samples: model.samples, input, contextKey: model.contextKey });
        failures.push(...(await replayAll(paths, () => actorDriver(mutant, input))));
        // The unmutated machine passes the same paths: the failure is the mutation's, not the harness's.
        expect(await replayAll(paths, () => actorDriver(machine, input))).toEqual([]);
      }
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.some((f) => f.event === event && JSON.stringify(f.actual).includes(to.split('.')[0]!))).toBe(
        true,
      );
    });

    it("reports the mutated edge against the seed's table", () => {
      const edges = machineEdges(mutant);
      expect(edges.has(edgeKey(source, event, from))).toBe(false);
      expect(edges.has(edgeKey(source, event, to))).toBe(true);
      const input = modelInputs(model)[0];
      expect(createActor(mutant, { input }).getSnapshot().value).toEqual(
        createActor(machine, { input }).getSnapshot().value,
      );
    });
  },
);
