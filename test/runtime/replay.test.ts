import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { executionMachine, lifecycles } from '../../machines/index.js';
import { ManualClock } from '../../src/actor-contract/clock.js';
import { verifyRun } from '../../src/runtime/replay.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { memoryStore } from '../../src/stores/memory/memory-store.js';
import type { EventRecord, Store, StoredRun } from '../../src/stores/store.js';

const T0 = Date.UTC(2026, 0, 1);

/** The persisted snapshot of the execution machine after `events`, computed by a real actor. */
function persisted(...events: string[]): unknown {
  const actor = createActor(executionMachine).start();
  for (const type of events) actor.send({ type } as never);
  return actor.getPersistedSnapshot();
}

function stored(runId: string, state: string, seq: number, overrides: Partial<StoredRun> = {}): StoredRun {
  return {
    runId,
    machine: 'execution',
    version: 1,
    status: 'active',
    state,
    snapshot: null,
    input: null,
    seq,
    owner: undefined,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

function event(runId: string, seq: number, type: string, before: string, after: string): EventRecord {
  return { runId, seq, event: { type, at: T0 + seq } as EventRecord['event'], at: T0 + seq, before, after };
}

/** Commits a hand-made run: creation, then each event with the row given for it. */
async function handMade(
  store: Store,
  runId: string,
  steps: Array<{ event: EventRecord; row: StoredRun }>,
): Promise<void> {
  await store.commit([{ run: stored(runId, 'pending', 0, { snapshot: persisted() }), expectedSeq: undefined }]);
  for (const [i, s] of steps.entries()) await store.commit([{ run: s.row, event: s.event, expectedSeq: i }]);
}

describe('verifyRun', () => {
  it('passes a run the runtime drove', async () => {
    const store = memoryStore();
    const rt = await createRuntime({ store, machines: lifecycles, clock: new ManualClock(T0) });
    await rt.start('execution', { id: 'r' });
    for (const type of ['ENQUEUE', 'START', 'RECOVER', 'START', 'SUCCEED'] as const) await rt.dispatch('r', { type });
    await rt.close();
    expect(await verifyRun(store, lifecycles, 'r')).toEqual({
      runId: 'r',
      machine: 'execution',
      seq: 5,
      events: 5,
      ok: true,
      mismatches: [],
    });
  });

  it('reports a stored snapshot that its log does not lead to', async () => {
    const store = memoryStore();
    await handMade(store, 'r', [
      {
        event: event('r', 1, 'ENQUEUE', 'pending', 'queued'),
        row: stored('r', 'running', 1, { snapshot: persisted('ENQUEUE', 'START') }),
      },
    ]);
    const report = await verifyRun(store, lifecycles, 'r');
    expect(report.ok).toBe(false);
    expect(report.mismatches).toEqual([
      { kind: 'snapshot', message: 'replay ends with value "queued", the stored snapshot has "running"' },
      { kind: 'snapshot', message: "the run is stored in state 'running', replay ends in 'queued'" },
    ]);
  });

  it('reports an event the machine refuses, and states that differ from the log', async () => {
    const store = memoryStore();
    await handMade(store, 'refused', [
      {
        event: event('refused', 1, 'START', 'pending', 'running'),
        row: stored('refused', 'running', 1, { snapshot: persisted() }),
      },
    ]);
    expect((await verifyRun(store, lifecycles, 'refused')).mismatches).toEqual([
      { seq: 1, kind: 'refused', message: "replay does not accept 'START' in 'pending'" },
    ]);

    await handMade(store, 'wrong-after', [
      {
        event: event('wrong-after', 1, 'ENQUEUE', 'pending', 'held'),
        row: stored('wrong-after', 'queued', 1, { snapshot: persisted('ENQUEUE') }),
      },
    ]);
    expect((await verifyRun(store, lifecycles, 'wrong-after')).mismatches).toEqual([
      { seq: 1, kind: 'state', message: "replay goes to 'queued' on 'ENQUEUE', the log says 'held'" },
    ]);
  });

  it('reports a log out of sequence, and runs it cannot replay', async () => {
    const store = memoryStore();
    await handMade(store, 'gap', [
      {
        event: event('gap', 2, 'ENQUEUE', 'pending', 'queued'),
        row: stored('gap', 'queued', 1, { snapshot: persisted('ENQUEUE') }),
      },
    ]);
    expect((await verifyRun(store, lifecycles, 'gap')).mismatches).toEqual([
      { seq: 2, kind: 'sequence', message: "entry 1 of the log is run 'gap' seq 2, expected seq 1" },
    ]);

    expect((await verifyRun(store, lifecycles, 'nobody')).mismatches).toEqual([
      { kind: 'missing', message: "the store has no run 'nobody'" },
    ]);
    await store.commit([{ run: stored('alien', 'x', 0, { machine: 'alien' }), expectedSeq: undefined }]);
    expect((await verifyRun(store, lifecycles, 'alien')).mismatches[0]?.kind).toBe('unknown-machine');
    await store.commit([
      { run: stored('future', 'pending', 0, { version: 3, snapshot: persisted() }), expectedSeq: undefined },
    ]);
    expect((await verifyRun(store, lifecycles, 'future')).mismatches[0]).toMatchObject({
      kind: 'version',
      message: expect.stringContaining('v3, the registry has v1'),
    });
  });

  it('names a hole in the log (events lost from a damaged log) with its seq range, and stops the replay there', async () => {
    const store = memoryStore();
    await handMade(store, 'holed', [
      {
        event: event('holed', 1, 'ENQUEUE', 'pending', 'queued'),
        row: stored('holed', 'queued', 1, { snapshot: persisted('ENQUEUE') }),
      },
    ]);
    // seq 2 and 3 were lost; seq 4 follows.
    await store.commit([
      {
        run: stored('holed', 'running', 4, { snapshot: persisted('ENQUEUE', 'START', 'RECOVER', 'START') }),
        event: event('holed', 4, 'START', 'queued', 'running'),
        expectedSeq: 1,
      },
    ]);
    expect((await verifyRun(store, lifecycles, 'holed')).mismatches).toEqual([
      {
        seq: 2,
        kind: 'hole',
        message: "the log has no event for seq 2 to 3 (a hole in the run's history: those events were lost)",
      },
    ]);
    // A hole at the end: the run is at seq 6, its log ends at seq 4.
    await store.commit([
      { run: stored('holed', 'running', 6, { snapshot: persisted('ENQUEUE', 'START') }), expectedSeq: 4 },
    ]);
    expect((await verifyRun(store, lifecycles, 'holed')).mismatches.map((m) => m.message)).toEqual([
      "the log has no event for seq 2 to 3 (a hole in the run's history: those events were lost)",
      "the log has no event for seq 5 to 6 (a hole in the run's history: those events were lost)",
    ]);
  });
});
