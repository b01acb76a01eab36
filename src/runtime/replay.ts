import { createActor, fromTransition, type AnyActorScope, type AnyStateMachine, type EventObject } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import { currentStateName } from '../graph/state-name.js';
import { actorsCreated } from '../graph/xstate-internals.js';
import type { Store } from '../stores/store.js';
import { RUN_ENDED_EVENT } from './end-run.js';
import { SpawnedChildIds } from './spawned-child-ids.js';

/** One way a run's stored snapshot and its event log disagree. */
export interface ReplayMismatch {
  /** The seq of the event where it shows; absent for problems of the run as a whole. */
  readonly seq?: number;
  readonly kind: 'missing' | 'unknown-machine' | 'version' | 'sequence' | 'refused' | 'state' | 'snapshot' | 'hole';
  readonly message: string;
}

export interface RunVerification {
  readonly runId: string;
  readonly machine: string | undefined;
  /** The stored run's seq, and how many events its log holds. */
  readonly seq: number | undefined;
  readonly events: number;
  readonly ok: boolean;
  readonly mismatches: ReplayMismatch[];
}

/** JSON with sorted keys: two snapshots compare equal whatever order their fields were built in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Replays a run's event log from its initial snapshot through the pure transition of its machine
 * (no actors run, nothing is written) and checks it against what the store holds: the log is
 * 1..seq without gaps, every event is accepted, the states before and after each event are the
 * recorded ones, and the result has the stored snapshot's value, status and context.
 */
export async function verifyRun(store: Store, lifecycles: Lifecycles, runId: string): Promise<RunVerification> {
  const mismatches: ReplayMismatch[] = [];
  const stored = await store.load(runId);
  const history = await store.history(runId);
  const result = (machine?: string) => ({
    runId,
    machine,
    seq: stored?.seq,
    events: history.length,
    ok: mismatches.length === 0,
    mismatches,
  });
  if (!stored) {
    mismatches.push({ kind: 'missing', message: `the store has no run '${runId}'` });
    return result();
  }
  const lifecycle = Object.hasOwn(lifecycles, stored.machine) ? lifecycles[stored.machine] : undefined;
  if (!lifecycle) {
    mismatches.push({ kind: 'unknown-machine', message: `the run's machine '${stored.machine}' is not registered` });
    return result(stored.machine);
  }
  if (stored.version !== lifecycle.version) {
    mismatches.push({
      kind: 'version',
      message: `the run was stored by ${stored.machine} v${stored.version}, the registry has v${lifecycle.version}: its log can only be replayed through the definition that wrote it`,
    });
    return result(stored.machine);
  }

  // A hole (seqs no entry holds: lost lines of a damaged log) is named with its range; replay cannot cross it.
  const holes: Array<{ from: number; to: number }> = [];
  let expected = 1;
  history.forEach((record, i) => {
    if (record.runId === runId && record.seq > expected && record.seq <= stored.seq)
      holes.push({ from: expected, to: record.seq - 1 });
    else if (record.seq !== expected || record.runId !== runId)
      mismatches.push({
        seq: record.seq,
        kind: 'sequence',
        message: `entry ${i + 1} of the log is run '${record.runId}' seq ${record.seq}, expected seq ${expected}`,
      });
    expected = record.seq + 1;
  });
  if (stored.seq >= expected) holes.push({ from: expected, to: stored.seq });
  for (const { from, to } of holes)
    mismatches.push({
      seq: from,
      kind: 'hole',
      message: `the log has no event for ${from === to ? `seq ${from}` : `seq ${from} to ${to}`} (a hole in the run's history: those events were lost)`,
    });
  if (holes.length === 0 && stored.seq !== history.length)
    mismatches.push({
      kind: 'sequence',
      message: `the run is at seq ${stored.seq} but its log holds ${history.length} events`,
    });

  const machine: AnyStateMachine = lifecycle.machine;
  const childIds = new SpawnedChildIds(0);
  // The runtime stores a missing input as null; the actor was started with undefined.
  let snapshot = machine.getInitialSnapshot(replayScope(runId, childIds), stored.input ?? undefined);
  // A run ended by a person (`endSetAside`) keeps its last snapshot with status 'stopped'.
  let ended = false;
  for (const record of history) {
    if (holes[0] && record.seq > holes[0].from) return result(stored.machine);
    const before = currentStateName(snapshot);
    if (before !== record.before)
      mismatches.push({
        seq: record.seq,
        kind: 'state',
        message: `replay is in '${before}' before '${record.event.type}', the log says '${record.before}'`,
      });
    if (record.event.type === RUN_ENDED_EVENT) {
      ended = true;
      continue;
    }
    childIds.step(record.seq);
    const event = record.event as EventObject;
    const next = machine.transition(snapshot, event, replayScope(runId, childIds));
    // The same snapshot back is also a transition that changed nothing (a `forwardTo`, an action
    // of its own): as when the run took it (hosted-run.ts), only `can` tells them apart.
    if ((next === snapshot && !snapshot.can(event)) || next.status === 'error') {
      mismatches.push({
        seq: record.seq,
        kind: 'refused',
        message: `replay ${next.status === 'error' ? `fails on '${record.event.type}': ${String(next.error)}` : `does not accept '${record.event.type}' in '${before}'`}`,
      });
      return result(stored.machine);
    }
    const after = currentStateName(next);
    if (after !== record.after)
      mismatches.push({
        seq: record.seq,
        kind: 'state',
        message: `replay goes to '${after}' on '${record.event.type}', the log says '${record.after}'`,
      });
    snapshot = next;
  }
  // Past a hole the stored snapshot cannot be compared with a replay that lacks the lost events.
  if (holes.length) return result(stored.machine);

  const replayed = machine.getPersistedSnapshot(snapshot) as unknown as {
    value: unknown;
    status: string;
    context: unknown;
  };
  const status = ended ? 'stopped' : snapshot.status;
  replayed.status = status;
  const kept = stored.snapshot as { value?: unknown; status?: unknown; context?: unknown } | null;
  for (const field of ['value', 'status', 'context'] as const) {
    if (canonical(replayed[field]) !== canonical(kept?.[field])) {
      mismatches.push({
        kind: 'snapshot',
        message: `replay ends with ${field} ${canonical(replayed[field])}, the stored snapshot has ${canonical(kept?.[field])}`,
      });
    }
  }
  if (stored.state !== currentStateName(snapshot))
    mismatches.push({
      kind: 'snapshot',
      message: `the run is stored in state '${stored.state}', replay ends in '${currentStateName(snapshot)}'`,
    });
  if (stored.status !== status)
    mismatches.push({
      kind: 'snapshot',
      message: `the run is stored with status '${stored.status}', replay ends with '${status}'`,
    });
  return result(stored.machine);
}

/**
 * What XState's pure `transition` gives a machine to step in (its actions collected, never run),
 * with the run's id, and the children it spawns named as the run named them (spawned-child-ids.ts).
 * A fresh one per step, as XState's: a stopped child's `systemId` is free again at the next.
 */
function replayScope(runId: string, childIds: SpawnedChildIds): AnyActorScope {
  const self = createActor(
    fromTransition((state: undefined) => state, undefined),
    { id: runId, inspect: actorsCreated(childIds.created, undefined) },
  );
  const nothing = () => {};
  return {
    self,
    id: runId,
    sessionId: self.sessionId,
    system: self.system,
    logger: nothing,
    defer: nothing,
    stopChild: nothing,
    emit: nothing,
    actionExecutor: nothing,
  } as unknown as AnyActorScope;
}
