import { createActor } from 'xstate';
import type { Lifecycles } from '../../machines/lifecycle.js';
import type { Store, StoredRun } from '../stores/store.js';
import { runIdProblem } from './call-arguments.js';
import { UnknownMachineError } from './errors.js';
import { migrate } from './migrate.js';
import { INLINE_CHILD_FIX, storedInlineChildren } from './inline-children.js';

/**
 * A stored run that cannot be restored under the registry this runtime has: its id is not one a
 * caller may use (stored before ids were checked, or written past the runtime), its machine is not
 * registered, its version has no migration path, XState refuses its snapshot (a state the
 * definition no longer has), or its lifecycle's recovery hook throws. It is kept as stored, takes
 * no events, and holds up no other run, until a restart with a migration or a fixed definition
 * restores it, or a person ends it (`Runtime.endSetAside`, `statewright end`).
 */
export interface SetAsideRun {
  readonly runId: string;
  readonly machine: string;
  /** The state it is stored in. */
  readonly state: string;
  /** The lifecycle version that stored it. */
  readonly version: number;
  /** Why it cannot be restored, and so what would move it on. */
  readonly reason: string;
}

/** Where restoring a run failed: each stage has its own remedy. */
export type RestoreStage = 'id' | 'machine' | 'migrate' | 'inline-child' | 'restore' | 'recover';

/** The reason a run is set aside, from the stage that failed and its error. */
export function setAsideReason(stage: RestoreStage, error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  switch (stage) {
    case 'id':
      return `its run id is malformed (${message}): every runtime call refuses such an id, so the run is kept as stored and takes no events`;
    case 'machine':
    case 'migrate':
      return message;
    case 'inline-child':
      return `its ${message} was spawned from inline logic, which XState cannot revive from its snapshot: ${INLINE_CHILD_FIX}, then register the fixed machine under the next version with a migration that names the child's logic`;
    case 'restore':
      return `XState cannot restore its stored snapshot under the current definition (${message}): the definition changed without a version bump and a migration`;
    case 'recover':
      return `its lifecycle's recovery hook threw: ${message}`;
  }
}

/** A run as a set-aside entry. */
export function setAsideEntry(run: StoredRun, reason: string): SetAsideRun {
  return { runId: run.runId, machine: run.machine, state: run.state, version: run.version, reason };
}

/**
 * Why `run` cannot be restored under `machines`, or undefined when it can: the same stages the
 * runtime goes through (machine, migrations, XState's restore, the recovery hook), with nothing
 * started and nothing written. Only runs XState still calls active are restored, so only they are asked about.
 */
export function restoreProblem(run: StoredRun, machines: Lifecycles, now: number): string | undefined {
  let stage: RestoreStage = 'id';
  try {
    checkStoredId(run.runId);
    stage = 'machine';
    const lifecycle = Object.hasOwn(machines, run.machine) ? machines[run.machine] : undefined;
    if (!lifecycle) throw new UnknownMachineError(run.machine, Object.keys(machines));
    stage = 'migrate';
    const current = migrate(run, lifecycle);
    stage = 'inline-child';
    checkNoInlineChild(current.snapshot);
    stage = 'restore';
    // Not started: building the actor restores the snapshot and its children without running anything.
    const restored = createActor(lifecycle.machine, { snapshot: current.snapshot as never }).getSnapshot();
    if (restored.status === 'error') throw restored.error;
    stage = 'recover';
    const owner = run.owner;
    lifecycle.recover?.({
      runId: run.runId,
      snapshot: current.snapshot as never,
      previousOwner: owner && { id: owner.id, pid: owner.pid, host: owner.host, alive: false },
      now,
    });
    return undefined;
  } catch (error) {
    return setAsideReason(stage, error);
  }
}

/** Throws when a stored snapshot holds a child spawned from inline logic (stored before such steps were refused). */
export function checkNoInlineChild(persisted: unknown): void {
  const inline = storedInlineChildren(persisted);
  if (inline.length)
    throw new Error(`${inline.length === 1 ? 'child' : 'children'} ${inline.map((id) => `'${id}'`).join(', ')}`);
}

/** Throws the problem of a stored run's id, if it has one: such a run is set aside (stage 'id'). */
export function checkStoredId(runId: string): void {
  const problem = runIdProblem(runId);
  if (problem !== undefined) throw new Error(problem);
}

/**
 * The live runs in `store` that a runtime with `machines` would set aside, each with its reason:
 * found without starting a runtime, so a changed registry can be held against a store before it
 * is deployed (`statewright check --store`), and `statewright status` can list them.
 */
export async function setAsideRunsIn(
  store: Store,
  machines: Lifecycles,
  now: number = Date.now(),
): Promise<SetAsideRun[]> {
  const setAside: SetAsideRun[] = [];
  for (const run of await store.list({ status: 'active' })) {
    const reason = restoreProblem(run, machines, now);
    if (reason !== undefined) setAside.push(setAsideEntry(run, reason));
  }
  return setAside;
}

/**
 * Why a live runtime sets `run` aside, or undefined: its own finding, or, for an active run it has
 * not come across yet, the rule it will apply when it does (`restoreProblem`). After a restart, or
 * a config change, a host's runs sleep in the store until an event or a deadline wakes them, so
 * its list of set-aside runs starts empty; what is shown of a run must not wait for that.
 */
export function setAsideReasonOn(
  runtime: { setAside(): readonly SetAsideRun[]; readonly machines: Lifecycles },
  run: StoredRun,
  now: number,
): string | undefined {
  if (run.status !== 'active') return undefined;
  return (
    runtime.setAside().find((entry) => entry.runId === run.runId)?.reason ?? restoreProblem(run, runtime.machines, now)
  );
}
