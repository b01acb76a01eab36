/**
 * The every-path suite, generated for every registered lifecycle from its statechart.
 * Adding a lifecycle to machines/index.ts (and its seed table to ./lifecycles) is all it takes.
 */
import { describe, expect, it } from 'vitest';
import { createActor, pathToStateValue, type AnyStateMachine } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { eventTypes, leafStates, stateName, transitionTable } from '../../src/graph/index.js';
import { actorDriver } from './actor-driver.js';
import { edgeKey, machineEdges, replayAll, simplePaths, takenEdges, transitionCoveringPaths } from './harness.js';
import { lifecycleModels } from './lifecycles/index.js';

describe.each(Object.keys(lifecycles) as LifecycleName[])('lifecycle %s', (name) => {
  const machine: AnyStateMachine = lifecycles[name].machine;
  const model = lifecycleModels[name];
  const options = { samples: model.samples, input: model.input, contextKey: model.contextKey };
  const initial = createActor(machine, { input: model.input }).getSnapshot();
  const paths = transitionCoveringPaths(machine, options);

  it('has generated paths that together take every transition', () => {
    expect([...machineEdges(machine)].filter((edge) => !takenEdges(paths, initial).has(edge))).toEqual([]);
  });

  it('reaches the predicted state after every step of every transition-covering path', async () => {
    expect(await replayAll(paths, () => actorDriver(machine, model.input))).toEqual([]);
  });

  it('reaches the predicted state after every step of every simple path', async () => {
    const all = simplePaths(machine, options);
    if (!all) return; // more than the limit: the transition-covering paths stand alone
    expect(all.length).toBeGreaterThan(0);
    expect(await replayAll(all, () => actorDriver(machine, model.input))).toEqual([]);
  });

  it("has a one-step graph equal to the seed's transition table plus documented additions", () => {
    const expected = new Set([...model.seedTable, ...(model.additions ?? [])].map(([s, e, t]) => edgeKey(s, e, t)));
    const actual = machineEdges(machine);
    expect({ missing: [...expected].filter((e) => !actual.has(e)), extra: [...actual].filter((e) => !expected.has(e)) }).toEqual({
      missing: [],
      extra: [],
    });
  });

  it('rejects every (state, event) pair outside the table and stays where it was', () => {
    const accepted = new Set(transitionTable(machine).map((r) => `${r.source} ${r.event}`));
    const events = eventTypes(machine);
    let checked = 0;
    for (const leaf of leafStates(machine)) {
      const state = stateName(leaf);
      for (const type of events.filter((e) => !accepted.has(`${state} ${e}`))) {
        const snapshot = machine.resolveState({ value: pathToStateValue(leaf.path), context: initial.context });
        expect(snapshot.can({ type }), `${state} accepts ${type}`).toBe(false);
        if (leaf.type !== 'final') {
          // A finished actor refuses everything by construction; only a live one can be tricked.
          const actor = createActor(machine, { snapshot, input: model.input }).start();
          actor.send({ type });
          expect(actor.getSnapshot().value).toEqual(snapshot.value);
          actor.stop();
        }
        checked++;
      }
    }
    expect(checked).toBe(leafStates(machine).length * events.length - accepted.size);
  });
});
