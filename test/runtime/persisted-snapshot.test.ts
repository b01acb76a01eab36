import { describe, expect, it, vi } from 'vitest';
import {
  assign,
  createActor,
  createMachine,
  fromPromise,
  setup,
  type AnyMachineSnapshot,
  type AnyStateMachine,
} from 'xstate';
import { persistedByField, persistedSnapshot } from '../../src/runtime/persisted-snapshot.js';

/** The snapshot after each event, from a fresh actor. */
function snapshotsOf(machine: AnyStateMachine, events: Array<{ type: string }>): AnyMachineSnapshot[] {
  const actor = createActor(machine).start();
  const snapshots = [actor.getSnapshot()];
  for (const event of events) {
    actor.send(event);
    snapshots.push(actor.getSnapshot());
  }
  return snapshots;
}

const expectSameAsXState = (machine: AnyStateMachine, snapshots: AnyMachineSnapshot[]) => {
  for (const snapshot of snapshots) {
    // JSON too: the store keeps the JSON, so field order and undefined fields must agree as well.
    expect(persistedByField(snapshot)).toEqual(machine.getPersistedSnapshot(snapshot));
    expect(JSON.stringify(persistedByField(snapshot))).toBe(JSON.stringify(machine.getPersistedSnapshot(snapshot)));
  }
};

describe('persistedByField', () => {
  it('persists shallow and deep history as XState does', () => {
    const machine = createMachine({
      id: 'history',
      initial: 'working',
      states: {
        working: {
          initial: 'a',
          states: {
            a: { on: { NEXT: 'b' } },
            b: { initial: 'b1', states: { b1: { on: { NEXT: 'b2' } }, b2: {} } },
            shallow: { type: 'history' },
            deep: { type: 'history', history: 'deep' },
          },
          on: { PAUSE: 'paused' },
        },
        paused: { on: { RESUME: 'working.deep', RESUME_SHALLOW: 'working.shallow' } },
      },
    });
    const snapshots = snapshotsOf(machine, [
      { type: 'NEXT' },
      { type: 'NEXT' },
      { type: 'PAUSE' },
      { type: 'RESUME' },
      { type: 'PAUSE' },
      { type: 'RESUME_SHALLOW' },
    ]);
    expect(Object.keys(snapshots[3]!.historyValue)).not.toHaveLength(0);
    expectSameAsXState(machine, snapshots);
  });

  it('persists actor references held in the context as their ids, and invoked children with their snapshots', () => {
    const child = createMachine({ initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: {} } });
    const machine = setup({ actors: { child, work: fromPromise(() => new Promise<void>(() => {})) } }).createMachine({
      context: { refs: [] as unknown[], nested: { deeper: { ref: undefined as unknown } }, plain: { n: 1 } },
      initial: 'spawning',
      invoke: { src: 'work', id: 'worker' },
      states: {
        spawning: {
          entry: assign(({ spawn }) => {
            const ref = spawn('child', { id: 'kid' });
            return { refs: [ref, 'text'], nested: { deeper: { ref } } };
          }),
          on: { DONE: 'done' },
        },
        done: { type: 'final' },
      },
    });
    const [first, last] = snapshotsOf(machine, [{ type: 'DONE' }]) as [AnyMachineSnapshot, AnyMachineSnapshot];
    const persisted = persistedByField(first) as {
      context: { refs: unknown[]; plain: unknown };
      children: Record<string, unknown>;
    };
    expect(persisted.context.refs[0]).toEqual({ xstate$$type: 1, id: 'kid' });
    expect(persisted.context.plain).toBe(first.context.plain); // untouched parts are not copied
    expect(Object.keys(persisted.children).sort()).toEqual(['kid', 'worker']);
    expectSameAsXState(machine, [first, last]);
  });

  it('persists a final snapshot with its output, and an errored one with its error', () => {
    const finishing = createMachine({
      initial: 'a',
      states: { a: { on: { END: 'end' } }, end: { type: 'final' } },
      output: { result: 42 },
    });
    expectSameAsXState(finishing, snapshotsOf(finishing, [{ type: 'END' }]));
    const failing = createMachine({
      initial: 'a',
      states: {
        a: {
          on: {
            BOOM: {
              actions: () => {
                throw new Error('boom');
              },
            },
          },
        },
      },
    });
    const actor = createActor(failing);
    actor.subscribe({ error: () => {} });
    actor.start();
    actor.send({ type: 'BOOM' });
    expect(actor.getSnapshot().status).toBe('error');
    expect(persistedByField(actor.getSnapshot())).toEqual(failing.getPersistedSnapshot(actor.getSnapshot()));
  });
});

describe('persistedSnapshot', () => {
  const machine = () => createMachine({ initial: 'a', context: { n: 1 }, states: { a: { on: { NEXT: 'b' } }, b: {} } });

  it('asks XState once per machine, to check its own result, and then persists by field', () => {
    const logic = machine();
    const spy = vi.spyOn(logic, 'getPersistedSnapshot');
    const snapshots = snapshotsOf(logic, [{ type: 'NEXT' }]);
    const persisted = snapshots.map((snapshot) => persistedSnapshot(logic, snapshot));
    expect(spy).toHaveBeenCalledTimes(1);
    expect(persisted).toEqual(snapshots.map((snapshot) => persistedByField(snapshot)));
  });

  it('uses XState itself for snapshots that do not have the fields it knows, and decides on the first usual one', () => {
    const logic = machine();
    const spy = vi.spyOn(logic, 'getPersistedSnapshot');
    const [snapshot] = snapshotsOf(logic, []);
    const unfamiliar = { ...snapshot!, somethingNew: 1 } as unknown as AnyMachineSnapshot;
    persistedSnapshot(logic, unfamiliar);
    persistedSnapshot(logic, unfamiliar);
    expect(spy).toHaveBeenCalledTimes(2);
    persistedSnapshot(logic, snapshot!); // checked against XState once more, then by field
    persistedSnapshot(logic, snapshot!);
    expect(spy).toHaveBeenCalledTimes(3);
  });

  it("keeps XState's function for a machine whose persisted snapshot differs from the field-by-field one", () => {
    const logic = machine();
    const [snapshot] = snapshotsOf(logic, []);
    const differently = vi
      .spyOn(logic, 'getPersistedSnapshot')
      .mockImplementation(() => ({ persisted: 'differently' }) as never);
    expect(persistedSnapshot(logic, snapshot!)).toEqual({ persisted: 'differently' });
    expect(persistedSnapshot(logic, snapshot!)).toEqual({ persisted: 'differently' });
    expect(differently).toHaveBeenCalledTimes(3);
  });

  it('leaves a child actor with inline logic to XState', () => {
    // XState decides how (and, in its development build, whether) such a child is persisted.
    const logic = createMachine({
      context: ({ spawn }) => ({ ref: spawn(fromPromise(() => new Promise<void>(() => {}))) }),
    });
    const [snapshot] = snapshotsOf(logic, []);
    expect(persistedByField(snapshot!)).toBeUndefined();
    let xstate: unknown;
    try {
      xstate = logic.getPersistedSnapshot(snapshot!);
    } catch (error) {
      expect(() => persistedSnapshot(logic, snapshot!)).toThrow((error as Error).message);
      return;
    }
    expect(persistedSnapshot(logic, snapshot!)).toEqual(xstate);
  });
});
