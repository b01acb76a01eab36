import type { AnyActorRef, AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import {
  childSyncSnapshot,
  hasMachineSnapshotFields,
  isActorRef,
  PERSISTED_ACTOR_TYPE,
  persistedHistoryValue,
} from '../graph/xstate-internals.js';

/**
 * The persisted form of a machine snapshot, as XState's `machine.getPersistedSnapshot` gives it,
 * but at about a hundredth of the cost.
 *
 * XState builds it with an object rest (`const { _nodes, tags, machine, ...json } = snapshot`),
 * which V8 runs through a slow generic path: about 2 µs, the biggest cost of a step after `send`
 * itself. This reads the same fields by name. It is checked against XState's own result on the
 * first usual snapshot of each machine (and, in the tests, on every state each lifecycle can
 * reach); if XState ever persists a snapshot differently, that machine keeps XState's function.
 */
export function persistedSnapshot(logic: AnyStateMachine, snapshot: AnyMachineSnapshot): unknown {
  let same = agrees.get(logic);
  if (same === undefined) {
    // Only a snapshot with the usual fields can tell (one that failed to start has three of them).
    if (!hasMachineSnapshotFields(snapshot)) return logic.getPersistedSnapshot(snapshot);
    const ours = persistedByField(snapshot);
    if (ours === undefined) return logic.getPersistedSnapshot(snapshot);
    same = JSON.stringify(ours) === JSON.stringify(logic.getPersistedSnapshot(snapshot));
    agrees.set(logic, same);
  }
  if (!same) return logic.getPersistedSnapshot(snapshot);
  return persistedByField(snapshot) ?? logic.getPersistedSnapshot(snapshot);
}

/** Whether `persistedByField` gives what XState gives for this machine (same JSON). */
const agrees = new WeakMap<AnyStateMachine, boolean>();

/**
 * XState's `getPersistedSnapshot`, field by field; undefined where XState must decide (a child
 * actor with inline logic). Exported for the tests that hold it to XState's result.
 */
export function persistedByField(snapshot: AnyMachineSnapshot): unknown {
  const children: Record<string, unknown> = {};
  const live = snapshot.children as Record<string, AnyActorRef>;
  for (const id in live) {
    const child = live[id]!;
    // A child whose logic was given inline: XState decides (its development build refuses it).
    if (typeof child.src !== 'string') return undefined;
    children[id] = {
      snapshot: child.getPersistedSnapshot(),
      src: child.src,
      systemId: (child as { systemId?: string }).systemId,
      syncSnapshot: childSyncSnapshot(child),
    };
  }
  return {
    status: snapshot.status,
    output: snapshot.output,
    error: snapshot.error,
    value: snapshot.value,
    historyValue: persistedHistoryValue(snapshot),
    context: persistContext(snapshot.context),
    children,
  };
}

/** The context with every actor reference in it replaced by its id, copying only what changes (as XState's `persistContext`). */
function persistContext(part: unknown): unknown {
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const key in part as Record<string, unknown>) {
    const value = (part as Record<string, unknown>)[key];
    if (!value || typeof value !== 'object') continue;
    const persisted = isActorRef(value) ? { xstate$$type: PERSISTED_ACTOR_TYPE, id: value.id } : persistContext(value);
    if (persisted === value) continue;
    copy ??= Array.isArray(part) ? part.slice() : { ...(part as Record<string, unknown>) };
    (copy as Record<string, unknown>)[key] = persisted;
  }
  return copy ?? part;
}
