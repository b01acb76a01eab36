import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { OwnerInfo, StoredRun } from '../stores/store.js';

/** What a step changes in a run's row; the rest is the previous row's. */
export interface RowChanges {
  status: string;
  state: string;
  seq: number;
  owner: OwnerInfo;
  updatedAt: number;
}

/**
 * The run's row after a step, whose `snapshot` (the persisted form of `snapshot`) is computed when
 * first read rather than on every step.
 *
 * XState's `getPersistedSnapshot` costs about half an `actor.send`. A machine snapshot is
 * immutable, so converting it later gives the same result, except for its child actors, whose
 * snapshots live on and change: those are captured now. A store that serializes at commit reads
 * it at once; the memory store never pays unless somebody reads the run back.
 *
 * An object literal with a getter: the accessor is an own enumerable property (so spreads,
 * `JSON.stringify` and `structuredClone` read it like a field) and V8 still builds it as a fast
 * object. Built field by field: spreading `previous` would read (and so compute) its snapshot.
 */
export function lazySnapshotRow(previous: StoredRun, logic: AnyStateMachine, snapshot: AnyMachineSnapshot, changes: RowChanges): StoredRun {
  const children = capturedChildren(snapshot);
  let persisted: unknown;
  let done = false;
  return {
    runId: previous.runId,
    machine: previous.machine,
    version: previous.version,
    status: changes.status,
    state: changes.state,
    input: previous.input,
    seq: changes.seq,
    owner: changes.owner,
    createdAt: previous.createdAt,
    updatedAt: changes.updatedAt,
    get snapshot() {
      if (!done) {
        persisted = logic.getPersistedSnapshot(children ? ({ ...snapshot, children } as AnyMachineSnapshot) : snapshot);
        done = true;
      }
      return persisted;
    },
  };
}

/** The snapshot's child actors frozen as they are now, or undefined when it has none. */
function capturedChildren(snapshot: AnyMachineSnapshot): Record<string, unknown> | undefined {
  let children: Record<string, unknown> | undefined;
  const live = snapshot.children as Record<string, AnyActorRef | undefined>;
  for (const id in live) {
    children ??= {};
    const child = live[id];
    if (!child) continue;
    const persisted = child.getPersistedSnapshot();
    children[id] = {
      getPersistedSnapshot: () => persisted,
      src: child.src,
      systemId: (child as unknown as { systemId?: string }).systemId,
      _syncSnapshot: (child as unknown as { _syncSnapshot?: boolean })._syncSnapshot,
    };
  }
  return children;
}
