import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { plainRow, type OwnerInfo, type StoredRun } from '../stores/store.js';
import { frozenChild } from '../graph/xstate-internals.js';
import { persistedSnapshot } from './persisted-snapshot.js';
import { withArmedDelays, type ArmedDelays } from './timers/after-delays.js';

/** What a step changes in a run's row; the rest is the previous row's. */
export interface RowChanges {
  status: string;
  state: string;
  seq: number;
  owner: OwnerInfo;
  updatedAt: number;
  /** The `after` delays armed after the step and when each is due: kept beside XState's fields. */
  armedDelays?: ArmedDelays | undefined;
}

const NOT_YET = Symbol('not yet persisted');

/**
 * The run's row after a step, whose `snapshot` (the persisted form of the XState snapshot) is
 * computed when first read rather than on every step.
 *
 * Persisting a snapshot costs something (see `persistedSnapshot`). A machine snapshot is
 * immutable, so converting it later gives the same result, except for its child actors, whose
 * snapshots live on and change: those are captured now. A store that serializes at commit reads
 * it at once; the memory store never pays unless somebody reads the run back.
 *
 * A class with the getter on its prototype, so every row shares one shape. (An object literal with
 * its own `get snapshot()` gets a hidden class of its own per row, and V8's chain of those classes
 * kept every earlier row and XState snapshot alive: most of the in-memory runtime's time went to
 * garbage collection.) `snapshot` is therefore not an own property: stores copy rows with
 * `plainRow`, and `JSON.stringify` goes through `toJSON`.
 */
export class LazySnapshotRow implements StoredRun {
  readonly runId: string;
  readonly machine: string;
  readonly version: number;
  readonly status: string;
  readonly state: string;
  readonly input: unknown;
  readonly seq: number;
  readonly owner: OwnerInfo;
  readonly createdAt: number;
  readonly updatedAt: number;
  #logic: AnyStateMachine;
  #snapshot: AnyMachineSnapshot;
  #children: Record<string, unknown> | undefined;
  #armedDelays: ArmedDelays | undefined;
  #persisted: unknown = NOT_YET;

  constructor(previous: StoredRun, logic: AnyStateMachine, snapshot: AnyMachineSnapshot, changes: RowChanges) {
    this.runId = previous.runId;
    this.machine = previous.machine;
    this.version = previous.version;
    this.status = changes.status;
    this.state = changes.state;
    this.input = previous.input;
    this.seq = changes.seq;
    this.owner = changes.owner;
    this.createdAt = previous.createdAt;
    this.updatedAt = changes.updatedAt;
    this.#logic = logic;
    this.#snapshot = snapshot;
    this.#children = capturedChildren(snapshot);
    this.#armedDelays = changes.armedDelays;
  }

  get snapshot(): unknown {
    if (this.#persisted === NOT_YET) {
      const snapshot = this.#children
        ? ({ ...this.#snapshot, children: this.#children } as AnyMachineSnapshot)
        : this.#snapshot;
      this.#persisted = withArmedDelays(persistedSnapshot(this.#logic, snapshot), this.#armedDelays);
    }
    return this.#persisted;
  }

  toJSON(): StoredRun {
    return plainRow(this);
  }
}

/** The snapshot's child actors frozen as they are now, or undefined when it has none. */
function capturedChildren(snapshot: AnyMachineSnapshot): Record<string, unknown> | undefined {
  let children: Record<string, unknown> | undefined;
  const live = snapshot.children as Record<string, AnyActorRef | undefined>;
  for (const id in live) {
    children ??= {};
    const child = live[id];
    if (!child) continue;
    children[id] = frozenChild(child);
  }
  return children;
}
