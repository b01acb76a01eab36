/**
 * The every-path suite, generated for every registered lifecycle from its statechart.
 * Adding a lifecycle to machines/index.ts (and its seed table to ./lifecycles) is all it takes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, pathToStateValue, type AnyStateMachine } from 'xstate';
import { lifecycles, type LifecycleName } from '../../machines/index.js';
import { eventTypes, InvalidTransitionError, leafStates, stateName, transitionTable } from '../../src/graph/index.js';
import { createRuntime, ManualClock, type Runtime } from '../../src/runtime/index.js';
import { persistedByField } from '../../src/runtime/persisted-snapshot.js';
import { memoryStore, sqliteStore } from '../../src/stores/index.js';
import { actorDriver } from './actor-driver.js';
import { runtimeDriver } from './runtime-driver.js';
import {
  edgeKey,
  leafName,
  machineEdges,
  replayAll,
  simplePaths,
  takenEdges,
  transitionCoveringPaths,
} from './harness.js';
import { lifecycleModels } from './lifecycles/index.js';
import { modelInputs } from './lifecycles/model.js';
import { testDir } from '../stores/temp-dir.js';

// Each test here walks every path of a machine, hundreds of steps (the task's, committed to SQLite, take
// about 4 s at rest and 10-30 s with both cores busy): a hang detector sized for that work.
describe.each(Object.keys(lifecycles) as LifecycleName[])('lifecycle %s', { timeout: 120_000 }, (name) => {
  const machine: AnyStateMachine = lifecycles[name].machine;
  const model = lifecycleModels[name];
  const inputs = modelInputs(model);
  const initial = createActor(machine, { input: inputs[0] }).getSnapshot();
  const runs = inputs.map((input) => ({
    input,
    initial: createActor(machine, { input }).getSnapshot(),
    paths: transitionCoveringPaths(machine, { samples: model.samples, input, contextKey: model.contextKey }),
  }));

  it('has generated paths that together take every transition', () => {
    const taken = new Set(runs.flatMap((run) => [...takenEdges(run.paths, run.initial)]));
    expect([...machineEdges(machine)].filter((edge) => !taken.has(edge))).toEqual([]);
  });

  it('reaches the predicted state after every step of every transition-covering path', async () => {
    for (const run of runs) expect(await replayAll(run.paths, () => actorDriver(machine, run.input))).toEqual([]);
  });

  it('persists every snapshot on every path exactly as XState does', () => {
    let checked = 0;
    for (const run of runs) {
      for (const path of run.paths) {
        for (const step of path.steps) {
          expect(persistedByField(step.state)).toEqual(machine.getPersistedSnapshot(step.state));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('reaches the predicted state after every step through the runtime, committed to SQLite', async () => {
    const store = sqliteStore(join(testDir(name), 'state.db'), { synchronous: 'NORMAL' });
    const runtime = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(), recover: false });
    for (const run of runs)
      expect(await replayAll(run.paths, () => runtimeDriver(runtime, name, run.input))).toEqual([]);
    await runtime.close();
    await store.close();
  });

  it('has the runtime refuse, and not commit, every event outside the table in every reachable state', async () => {
    const accepted = new Set(transitionTable(machine).map((r) => `${r.source} ${r.event}`));
    const events = eventTypes(machine);
    const store = memoryStore();
    const runtime: Runtime = await createRuntime({
      store,
      machines: lifecycles,
      clock: new ManualClock(),
      recover: false,
    });
    const reached = new Set<string>();
    for (const { input, paths } of runs) {
      for (const path of paths) {
        if (path.steps.every((step) => reached.has(leafName(step.state)))) continue;
        const driver = runtimeDriver(runtime, name, input);
        await driver.start();
        const runId = driver.runId;
        for (const [index, step] of path.steps.entries()) {
          if (index > 0) await driver.send(step.event);
          const state = leafName(step.state);
          if (reached.has(state)) continue;
          reached.add(state);
          // Refusals change nothing, so every one is tried on the same run in the same state.
          const seq = (await runtime.getSnapshot(runId)).seq;
          for (const type of events.filter((e) => !accepted.has(`${state} ${e}`))) {
            await expect(runtime.dispatch(runId, { type }), `${state} + ${type}`).rejects.toBeInstanceOf(
              InvalidTransitionError,
            );
          }
          expect((await runtime.getSnapshot(runId)).seq).toBe(seq);
        }
      }
    }
    expect(reached).toEqual(new Set(leafStates(machine).map(stateName)));
    await runtime.close();
  });

  it('reaches the predicted state after every step of every simple path', async () => {
    for (const run of runs) {
      const all = simplePaths(machine, { samples: model.samples, input: run.input, contextKey: model.contextKey });
      if (!all) continue; // more than the limit: the transition-covering paths stand alone
      expect(all.length).toBeGreaterThan(0);
      expect(await replayAll(all, () => actorDriver(machine, run.input))).toEqual([]);
    }
  });

  it("has a one-step graph equal to the seed's transition table plus documented additions", () => {
    const expected = new Set([...model.seedTable, ...(model.additions ?? [])].map(([s, e, t]) => edgeKey(s, e, t)));
    const actual = machineEdges(machine);
    expect({
      missing: [...expected].filter((e) => !actual.has(e)),
      extra: [...actual].filter((e) => !expected.has(e)),
    }).toEqual({
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
          const actor = createActor(machine, { snapshot, input: inputs[0] }).start();
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
