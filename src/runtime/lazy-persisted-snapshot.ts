import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { StoredRun } from '../stores/store.js';

/**
 * The persisted form of `snapshot`, computed when first read rather than on every step.
 *
 * XState's `getPersistedSnapshot` costs about half an `actor.send`. A machine snapshot is
 * immutable, so converting it later gives the same result, except for its child actors, whose
 * snapshots live on and change: those are captured now. A store that serializes at commit reads
 * it at once; the memory store never pays unless somebody reads the run back.
 */
export function lazyPersistedSnapshot(logic: AnyStateMachine, snapshot: AnyMachineSnapshot): () => unknown {
  const children: Record<string, unknown> = {};
  for (const [id, child] of Object.entries(snapshot.children as Record<string, AnyActorRef | undefined>)) {
    if (!child) continue;
    const persisted = child.getPersistedSnapshot();
    children[id] = {
      getPersistedSnapshot: () => persisted,
      src: child.src,
      systemId: (child as unknown as { systemId?: string }).systemId,
      _syncSnapshot: (child as unknown as { _syncSnapshot?: boolean })._syncSnapshot,
    };
  }
  let value: unknown;
  let done = false;
  return () => {
    if (!done) {
      value = logic.getPersistedSnapshot({ ...snapshot, children } as AnyMachineSnapshot);
      done = true;
    }
    return value;
  };
}

/**
 * A committed row whose `snapshot` is computed on first read. An object literal with a getter: the
 * accessor is an own enumerable property (so spreads, `JSON.stringify` and `structuredClone` read
 * it like a field) and V8 still builds it as a fast object.
 */
export function lazySnapshotRow(fields: Omit<StoredRun, 'snapshot'>, persisted: () => unknown): StoredRun {
  return {
    runId: fields.runId,
    machine: fields.machine,
    version: fields.version,
    status: fields.status,
    state: fields.state,
    input: fields.input,
    seq: fields.seq,
    owner: fields.owner,
    createdAt: fields.createdAt,
    updatedAt: fields.updatedAt,
    get snapshot() {
      return persisted();
    },
  };
}
