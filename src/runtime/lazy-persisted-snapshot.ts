import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { OwnerInfo, StoredRun } from '../stores/store.js';

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
 * A committed row whose `snapshot` is computed on first read. A class, so the getter sits on the
 * prototype (an own accessor per row would push every row into slow dictionary mode); the getter
 * is enumerable through `toJSON` and `structuredClone` reads it like a field.
 */
export class LazySnapshotRow {
  readonly #persisted: () => unknown;
  constructor(
    readonly runId: string,
    readonly machine: string,
    readonly version: number,
    readonly status: string,
    readonly state: string,
    readonly input: unknown,
    readonly seq: number,
    readonly owner: OwnerInfo | undefined,
    readonly createdAt: number,
    readonly updatedAt: number,
    persisted: () => unknown,
  ) {
    this.#persisted = persisted;
  }

  get snapshot(): unknown {
    return this.#persisted();
  }

  toJSON(): StoredRun {
    return { ...this, snapshot: this.snapshot };
  }
}
