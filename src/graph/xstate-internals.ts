/**
 * Every use of XState's private or undocumented API, in one place: members prefixed with `_`, the
 * shape of its snapshots and persisted snapshots, and the insides of its higher-order guards.
 * Nothing else in the project reaches past XState's documented API, so an XState upgrade touches
 * this file, and test/graph/xstate-internals.test.ts says which assumption broke.
 */
import {
  __unsafe_getAllOwnEventDescriptors,
  and,
  not,
  or,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateNode,
  type InspectionEvent,
} from 'xstate';

/** The state nodes a snapshot is in (`snapshot._nodes`): the root, then each active node down to the leaves, in document order. */
export function activeStateNodes(snapshot: AnyMachineSnapshot): readonly AnyStateNode[] {
  return snapshot._nodes;
}

/** The path of the snapshot's first atomic state node ("Active", "Working", "Executing"). */
export function atomicStatePath(snapshot: AnyMachineSnapshot): readonly string[] {
  const leaf = snapshot._nodes.find((node) => node.type === 'atomic');
  if (!leaf)
    throw new Error(
      `The snapshot of machine '${snapshot.machine.id}' is in no atomic state (status: ${snapshot.status})`,
    );
  return leaf.path;
}

/** What each history state remembers, by the history node's id (e.g. "task.Active.resume"): the state nodes it restores. */
export function recordedHistories(snapshot: AnyMachineSnapshot): Readonly<Record<string, readonly AnyStateNode[]>> {
  return (snapshot.historyValue ?? {}) as Record<string, readonly AnyStateNode[]>;
}

/** The persisted form of `historyValue` (XState's `serializeHistoryValue`): each remembered node by its id. */
export function persistedHistoryValue(snapshot: AnyMachineSnapshot): Record<string, Array<{ id: string }>> {
  const result: Record<string, Array<{ id: string }>> = {};
  const recorded = recordedHistories(snapshot);
  for (const key in recorded) {
    const nodes = recorded[key];
    if (Array.isArray(nodes)) result[key] = nodes.map((node) => ({ id: node.id }));
  }
  return result;
}

/** Every event type the snapshot's active state nodes name (`__unsafe_getAllOwnEventDescriptors`), wildcards included. */
export function ownEventDescriptors(snapshot: AnyMachineSnapshot): string[] {
  return __unsafe_getAllOwnEventDescriptors(snapshot) as string[];
}

/**
 * Stops a child actor as XState's own `stopChild` does (`_stop`). A child's public `stop()` is
 * refused (a child belongs to its parent), and a machine that threw leaves its children running.
 */
export function stopChildActor(child: AnyActorRef): void {
  (child as unknown as { _stop?: () => void })._stop?.();
}

/** Whether a child was spawned with `syncSnapshot: true` (`_syncSnapshot`), which XState persists as `syncSnapshot`. */
export function childSyncSnapshot(child: AnyActorRef): boolean | undefined {
  return (child as unknown as { _syncSnapshot?: boolean })._syncSnapshot;
}

/**
 * A child actor frozen as it is now: what XState's `getPersistedSnapshot` reads of a child
 * (`getPersistedSnapshot()`, `src`, `systemId`, `_syncSnapshot`), so a snapshot whose children are
 * frozen persists later exactly as it would have now.
 */
export function frozenChild(child: AnyActorRef): AnyActorRef {
  const persisted = child.getPersistedSnapshot();
  return {
    getPersistedSnapshot: () => persisted,
    src: child.src,
    systemId: (child as unknown as { systemId?: string }).systemId,
    _syncSnapshot: childSyncSnapshot(child),
  } as unknown as AnyActorRef;
}

/** The own fields of an XState 5 machine snapshot (`createMachineSnapshot`), in their order, comma-separated. */
export const MACHINE_SNAPSHOT_FIELDS =
  'status,output,error,machine,context,_nodes,value,tags,children,historyValue,matches,hasTag,can,getMeta,toJSON';

/** Whether a snapshot has exactly the fields XState 5 gives a machine snapshot (one that failed to start has fewer). */
export function hasMachineSnapshotFields(snapshot: AnyMachineSnapshot): boolean {
  return Object.keys(snapshot).join(',') === MACHINE_SNAPSHOT_FIELDS;
}

/** XState's marker for an actor reference persisted from a context (`$$ACTOR_TYPE`): `{ xstate$$type: 1, id }`. */
export const PERSISTED_ACTOR_TYPE = 1;

/** XState's own test, when it persists a context, for a value that is an actor reference. */
export function isActorRef(value: object): value is AnyActorRef {
  return 'sessionId' in value && 'send' in value && 'ref' in value;
}

/** XState's higher-order guards, known by the `check` function each one carries. */
const HIGHER_ORDER_CHECKS = new Map<unknown, 'and' | 'or' | 'not'>([
  [(and([]) as unknown as { check: unknown }).check, 'and'],
  [(or([]) as unknown as { check: unknown }).check, 'or'],
  [(not(() => true) as unknown as { check: unknown }).check, 'not'],
]);

/** The parts of a guard built with XState's `and`, `or` or `not` (its `guards`), or undefined for any other guard. */
export function higherOrderGuard(
  guard: unknown,
): { readonly kind: 'and' | 'or' | 'not'; readonly parts: readonly unknown[] } | undefined {
  if (typeof guard !== 'function') return undefined;
  const kind = HIGHER_ORDER_CHECKS.get((guard as { check?: unknown }).check);
  const parts = (guard as { guards?: unknown }).guards;
  return kind && Array.isArray(parts) ? { kind, parts } : undefined;
}

/** XState's `sendParent` target (`SpecialTargets.Parent`), which its `sendTo` action keeps as `to`. */
const PARENT_TARGET = '#_parent';

/**
 * The event types a child's logic sends to its parent with a fixed event (`sendParent({ type })`,
 * kept by XState's `sendTo` action as `to` and `event`), read from every state's entry, exit and
 * transition actions; empty for logic that is not a machine or sends only computed events.
 */
export function childSentEvents(logic: unknown): string[] {
  const root = (logic as { root?: AnyStateNode } | undefined)?.root;
  if (!root || typeof root !== 'object' || !('states' in root)) return [];
  const types = new Set<string>();
  const read = (action: unknown) => {
    const send = action as { type?: unknown; to?: unknown; event?: unknown };
    if (typeof action !== 'function' || send.type !== 'xstate.sendTo' || send.to !== PARENT_TARGET) return;
    const type = (send.event as { type?: unknown } | undefined)?.type;
    if (typeof send.event === 'object' && typeof type === 'string') types.add(type);
  };
  const visit = (node: AnyStateNode) => {
    for (const action of [...node.entry, ...node.exit]) read(action);
    for (const definitions of node.transitions.values()) for (const t of definitions) t.actions.forEach(read);
    for (const t of node.always ?? []) t.actions.forEach(read);
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(root);
  return [...types];
}

/** What XState's `spawnChild` action keeps of the child it spawns (`src`, `id`), or undefined for any other action. */
export function spawnedLogic(action: unknown): { readonly src: unknown; readonly id?: string } | undefined {
  const spawn = action as { type?: unknown; src?: unknown; id?: unknown };
  if (typeof action !== 'function' || spawn.type !== 'xstate.spawnChild') return undefined;
  return { src: spawn.src, ...(typeof spawn.id === 'string' && { id: spawn.id }) };
}

/**
 * The `inspect` option for a root actor that tells `created` of each actor of its system as it is
 * created (at its `@xstate.actor` event: id and parent set, its logic not yet run), and passes every
 * inspection event on to `inspect` when there is one. XState hands an inspector a fresh copy of
 * each event, which doubles the cost of a `send`; so at the first event (the root's own, before its
 * initial snapshot) the system's `_sendInspectionEvent` is replaced, and without `inspect` nothing
 * more is copied.
 */
export function actorsCreated(
  created: (actor: AnyActorRef) => void,
  inspect: ((event: InspectionEvent) => void) | undefined,
): (event: InspectionEvent) => void {
  let hooked = false;
  return (event) => {
    if (!hooked) {
      hooked = true;
      const system = (event.actorRef as AnyActorRef).system as unknown as {
        _sendInspectionEvent(event: InspectionEvent): void;
      };
      const send = system._sendInspectionEvent.bind(system);
      system._sendInspectionEvent = (next) => {
        if (next.type === '@xstate.actor') created(next.actorRef as AnyActorRef);
        if (inspect) send(next);
      };
      if (event.type === '@xstate.actor') created(event.actorRef as AnyActorRef);
    }
    inspect?.(event);
  };
}

/** The actor that spawned or invoked `actor` (`_parent`), or undefined for a root. */
export function parentOf(actor: AnyActorRef): AnyActorRef | undefined {
  return (actor as unknown as { _parent?: AnyActorRef })._parent;
}

/**
 * Gives an actor another id while it is being created (at its `@xstate.actor` inspection event,
 * before its logic has run): `id`, and its actor scope's copy of it (`_actorScope.id`), both set by
 * XState from the `sessionId` it booked when it was spawned without an id.
 */
export function renameActor(actor: AnyActorRef, id: string): void {
  const inside = actor as unknown as { id: string; _actorScope?: { id: string } };
  inside.id = id;
  if (inside._actorScope) inside._actorScope.id = id;
}
