/**
 * What the project assumes about XState's private API, one test per use (src/graph/xstate-internals.ts).
 * When an XState upgrade fails one of these, that use is the one to rewrite.
 */
import { describe, expect, it } from 'vitest';
import {
  and,
  assign,
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  not,
  or,
  sendParent,
  sendTo,
  setup,
  spawnChild,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type InspectionEvent,
} from 'xstate';
import {
  activeStateNodes,
  actorsCreated,
  atomicStatePath,
  childSentEvents,
  childSyncSnapshot,
  frozenChild,
  hasMachineSnapshotFields,
  higherOrderGuard,
  isActorRef,
  MACHINE_SNAPSHOT_FIELDS,
  ownEventDescriptors,
  parentOf,
  PERSISTED_ACTOR_TYPE,
  persistedHistoryValue,
  recordedHistories,
  spawnedLogic,
  renameActor,
  stopChildActor,
} from '../../src/graph/xstate-internals.js';

const nested = createMachine({
  id: 'nested',
  initial: 'outer',
  states: {
    outer: {
      initial: 'inner',
      on: { PAUSE: 'paused' },
      states: {
        inner: { on: { NEXT: 'other', 'task.*': 'other' } },
        other: {},
        resume: { type: 'history', history: 'deep' },
      },
    },
    paused: { on: { RESUME: 'outer.resume' } },
  },
});

const started = <T extends Parameters<typeof createActor>[0]>(logic: T) => createActor(logic).start();

describe('the XState internals statewright relies on', () => {
  it('activeStateNodes: the root, then every active node down to the leaf', () => {
    const snapshot = started(nested).getSnapshot();
    expect(activeStateNodes(snapshot).map((n) => n.id)).toEqual(['nested', 'nested.outer', 'nested.outer.inner']);
    expect(atomicStatePath(snapshot)).toEqual(['outer', 'inner']);
  });

  it('atomicStatePath refuses a snapshot that rests in no atomic state, naming the machine', () => {
    const done = started(
      createMachine({ id: 'done', initial: 'end', states: { end: { type: 'final' } } }),
    ).getSnapshot();
    expect(() => atomicStatePath(done)).toThrow(/machine 'done' is in no atomic state \(status: done\)/);
  });

  it('recordedHistories: the history node id maps to the state nodes it restores', () => {
    const actor = started(nested);
    expect(recordedHistories(actor.getSnapshot())).toEqual({});
    actor.send({ type: 'NEXT' });
    actor.send({ type: 'PAUSE' });
    const history = recordedHistories(actor.getSnapshot());
    expect(Object.keys(history)).toEqual(['nested.outer.resume']);
    expect(history['nested.outer.resume']!.map((node) => node.path)).toEqual([['outer', 'other']]);
    actor.send({ type: 'RESUME' });
    expect(actor.getSnapshot().value).toEqual({ outer: 'other' }); // what it recorded is what XState restored
  });

  it('persistedHistoryValue: the history as XState persists it', () => {
    const actor = started(nested);
    actor.send({ type: 'PAUSE' });
    const persisted = nested.getPersistedSnapshot(actor.getSnapshot()) as unknown as { historyValue: unknown };
    expect(persistedHistoryValue(actor.getSnapshot())).toEqual(persisted.historyValue);
    expect(persisted.historyValue).toEqual({ 'nested.outer.resume': [{ id: 'nested.outer.inner' }] });
  });

  it('ownEventDescriptors: the events the active state nodes name, wildcards included', () => {
    expect(ownEventDescriptors(started(nested).getSnapshot()).sort()).toEqual(['NEXT', 'PAUSE', 'task.*']);
  });

  it('stopChildActor stops the children a machine that threw leaves running', () => {
    let cleanups = 0;
    const machine = setup({ actors: { worker: fromCallback(() => () => void cleanups++) } }).createMachine({
      invoke: { id: 'worker', src: 'worker' },
      on: {
        BOOM: {
          actions: () => {
            throw new Error('boom');
          },
        },
      },
    });
    const actor = createActor(machine);
    actor.subscribe({ error: () => {} });
    actor.start();
    const child = actor.getSnapshot().children.worker as AnyActorRef;
    actor.send({ type: 'BOOM' });
    expect(actor.getSnapshot().status).toBe('error');
    expect(cleanups).toBe(0); // XState leaves it running
    expect(child.getSnapshot().status).toBe('active');
    stopChildActor(child);
    expect(cleanups).toBe(1);
    expect(child.getSnapshot().status).toBe('stopped');
  });

  it('childSyncSnapshot: a child spawned with syncSnapshot (or invoked with onSnapshot) says so, and XState persists it', () => {
    const child = createMachine({ initial: 'idle', states: { idle: {} } });
    const machine = setup({ actors: { child } }).createMachine({
      entry: [spawnChild('child', { id: 'synced', syncSnapshot: true }), spawnChild('child', { id: 'plain' })],
      invoke: { id: 'watched', src: 'child', onSnapshot: {} },
    });
    const snapshot = started(machine).getSnapshot();
    const children = snapshot.children as Record<string, AnyActorRef>;
    expect(childSyncSnapshot(children.synced!)).toBe(true);
    expect(childSyncSnapshot(children.plain!)).toBe(false);
    expect(childSyncSnapshot(children.watched!)).toBe(true);
    const persisted = machine.getPersistedSnapshot(snapshot) as unknown as {
      children: Record<string, { syncSnapshot: unknown }>;
    };
    expect(persisted.children.synced!.syncSnapshot).toBe(true);
    expect(persisted.children.plain!.syncSnapshot).toBe(false);
  });

  it('frozenChild: XState persists a snapshot with frozen children as it did when they were frozen', () => {
    const child = createMachine({ initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: {} } });
    const machine = setup({ actors: { child } }).createMachine({
      entry: spawnChild('child', { id: 'kid', systemId: 'the-kid', syncSnapshot: true }),
    });
    const actor = started(machine);
    const snapshot = actor.getSnapshot();
    const before = machine.getPersistedSnapshot(snapshot);
    const frozen = {
      ...snapshot,
      children: { kid: frozenChild(snapshot.children.kid as AnyActorRef) },
    } as unknown as AnyMachineSnapshot;
    (snapshot.children.kid as AnyActorRef).send({ type: 'GO' });
    expect(machine.getPersistedSnapshot(snapshot)).not.toEqual(before); // the live child moved on
    expect(machine.getPersistedSnapshot(frozen)).toEqual(before);
  });

  it('MACHINE_SNAPSHOT_FIELDS: a machine snapshot has exactly these own fields, in this order', () => {
    const snapshot = started(nested).getSnapshot();
    expect(Object.keys(snapshot).join(',')).toBe(MACHINE_SNAPSHOT_FIELDS);
    expect(hasMachineSnapshotFields(snapshot)).toBe(true);
    expect(hasMachineSnapshotFields({ ...snapshot, extra: 1 } as unknown as AnyMachineSnapshot)).toBe(false);
  });

  it('isActorRef and PERSISTED_ACTOR_TYPE: XState persists an actor reference in the context as its marker and id', () => {
    const child = createMachine({});
    const machine = setup({ actors: { child } }).createMachine({
      context: { ref: undefined as unknown, lookalike: { id: 'x', send: 1 } },
      entry: assign({ ref: ({ spawn }) => spawn('child', { id: 'spawned' }) }),
    });
    const snapshot = started(machine).getSnapshot();
    expect(isActorRef(snapshot.context.ref as object)).toBe(true);
    expect(isActorRef(snapshot.context.lookalike)).toBe(false);
    const persisted = machine.getPersistedSnapshot(snapshot) as unknown as {
      context: { ref: unknown; lookalike: unknown };
    };
    expect(persisted.context.ref).toEqual({ xstate$$type: PERSISTED_ACTOR_TYPE, id: 'spawned' });
    expect(persisted.context.lookalike).toEqual({ id: 'x', send: 1 });
  });

  it('higherOrderGuard: the kind and parts of and, or and not, which XState evaluates', () => {
    const yes = () => true;
    const no = () => false;
    expect(higherOrderGuard(and(['a', yes]))).toEqual({ kind: 'and', parts: ['a', yes] });
    expect(higherOrderGuard(or([no, 'b']))).toEqual({ kind: 'or', parts: [no, 'b'] });
    expect(higherOrderGuard(not(no))).toEqual({ kind: 'not', parts: [no] });
    // A function that only looks like one is not one.
    const lookalike = Object.assign(
      function and() {
        return true;
      },
      { guards: [no] },
    );
    expect(higherOrderGuard(lookalike)).toBeUndefined();
    expect(higherOrderGuard('and')).toBeUndefined();

    // The parts are what XState checks: and() is refused by its one failing part.
    const machine = setup({ guards: { yes, no } }).createMachine({
      initial: 'a',
      states: {
        a: {
          on: { BOTH: { guard: and(['yes', 'no']), target: 'b' }, EITHER: { guard: or(['no', 'yes']), target: 'b' } },
        },
        b: {},
      },
    });
    const snapshot = started(machine).getSnapshot();
    expect(snapshot.can({ type: 'BOTH' })).toBe(false);
    expect(snapshot.can({ type: 'EITHER' })).toBe(true);
    const guard = machine.root.states.a!.transitions.get('BOTH')![0]!.guard;
    expect(higherOrderGuard(guard)).toEqual({ kind: 'and', parts: ['yes', 'no'] });
  });

  it('actorsCreated, parentOf and renameActor: a child spawned without an id, renamed as it is created, is known by that name everywhere', () => {
    // The child reads its own id while its logic starts: it must already have the new one.
    const child = setup({ types: { context: {} as { me: string } } }).createMachine({
      context: ({ self }) => ({ me: self.id }),
      initial: 'working',
      states: { working: { on: { STOP: 'stopped' } }, stopped: { type: 'final' } },
    });
    const machine = setup({ actors: { child } }).createMachine({
      context: ({ spawn }) => ({ first: spawn('child'), named: spawn('child', { id: 'named' }), done: [] as string[] }),
      on: {
        STOP: { actions: ({ context }) => context.first.send({ type: 'STOP' }) },
        'xstate.done.actor.*': { actions: assign({ done: ({ context, event }) => [...context.done, event.type] }) },
      },
    });
    const seen: Array<{ id: string; parent: string | undefined }> = [];
    const inspected: string[] = [];
    const actor = createActor(machine, {
      id: 'root',
      inspect: actorsCreated(
        (created) => {
          seen.push({ id: created.id, parent: parentOf(created)?.id });
          if (created.id === created.sessionId && parentOf(created)) renameActor(created, 'renamed');
        },
        (event: InspectionEvent) => inspected.push(event.type),
      ),
    }).start();
    // Each actor as it is created: the root first, then its children, before they ran.
    expect(seen).toEqual([
      { id: 'root', parent: undefined },
      { id: expect.stringMatching(/^x:\d+$/), parent: 'root' },
      { id: 'named', parent: 'root' },
    ]);
    expect(inspected).toContain('@xstate.actor');
    expect(inspected).toContain('@xstate.snapshot');
    const snapshot = actor.getSnapshot();
    expect(Object.keys(snapshot.children)).toEqual(['renamed', 'named']);
    expect(snapshot.context.first.getSnapshot().context).toEqual({ me: 'renamed' });
    actor.send({ type: 'STOP' });
    expect(actor.getSnapshot().context.done).toEqual(['xstate.done.actor.renamed']);
    const persisted = machine.getPersistedSnapshot(actor.getSnapshot()) as unknown as { context: { first: unknown } };
    expect(persisted.context.first).toEqual({ xstate$$type: PERSISTED_ACTOR_TYPE, id: 'renamed' });
  });
});

describe("what XState's own actions keep", () => {
  it('childSentEvents: the fixed events a child machine sends its parent (sendParent), and nothing else', () => {
    const child = createMachine({
      initial: 'a',
      entry: sendParent({ type: 'CHILD_READY' }),
      states: {
        a: {
          on: {
            GO: { target: 'b', actions: [sendParent({ type: 'CHILD_MOVED' }), sendTo('x', { type: 'NOT_PARENT' })] },
          },
        },
        b: { exit: sendParent(() => ({ type: 'COMPUTED' })) },
      },
    });
    expect(childSentEvents(child).sort()).toEqual(['CHILD_MOVED', 'CHILD_READY']);
    expect(childSentEvents(fromPromise(async () => 1))).toEqual([]);
  });

  it('spawnedLogic: the src and id of a spawnChild action', () => {
    const logic = fromCallback(() => {});
    expect(spawnedLogic(spawnChild(logic, { id: 'ticker' }))).toEqual({ src: logic, id: 'ticker' });
    expect(spawnedLogic(spawnChild('named'))).toEqual({ src: 'named' });
    expect(spawnedLogic(assign({}))).toBeUndefined();
  });
});
