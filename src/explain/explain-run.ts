import { statSync } from 'node:fs';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import type { Lifecycle, LifecycleExplanation, Lifecycles } from '../../machines/lifecycle.js';
import { acceptedEvents } from '../graph/event-needs.js';
import { isProcessAlive } from '../os/process-identity.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import { UnknownMachineError, UnknownRunError } from '../runtime/errors.js';
import { migrate } from '../runtime/migrate.js';
import type { Runtime } from '../runtime/runtime.js';
import type { EventRecord, Store, StoredRun } from '../stores/store.js';
import { armedDeadlines, workingActors } from './armed-deadlines.js';
import { enteredAt } from './entered-at.js';
import type { Explanation } from './explanation.js';
import type { Refusal } from '../runtime/refusal.js';
import { verdict } from './verdict.js';

/**
 * Where `explainRun` reads a run: a live runtime (which also knows the last event it refused), or
 * a store and the registry, for a command that runs without a server.
 */
export type ExplainSource = Runtime | { readonly store: Store; readonly machines: Lifecycles; readonly clock?: Clock };

/**
 * Why the run is where it is: its state and since when, the events it accepts and what each
 * needs, its armed deadlines, its owner and whether it lives, what its lifecycle adds (approvals,
 * questions, the lease, the agent process), the last refusal, and a one-line verdict. Read from
 * the machine and the committed snapshot; changes nothing. Rejects with `UnknownRunError` for a
 * run the store does not hold.
 */
export async function explainRun(source: ExplainSource, runId: string): Promise<Explanation> {
  const live = 'lastRefusal' in source ? source : undefined;
  const machines = live ? live.machines : (source as { machines: Lifecycles }).machines;
  const clock = source.clock ?? systemClock;
  const stored = live ? await live.getSnapshot(runId) : await source.store.load(runId);
  if (!stored) throw new UnknownRunError(runId);
  const lifecycle = Object.hasOwn(machines, stored.machine) ? machines[stored.machine]! : undefined;
  if (!lifecycle) throw new UnknownMachineError(stored.machine, Object.keys(machines));
  const history = await source.store.history(runId);
  const setAside = setAsideOf(stored);
  const { current, unreadable } = setAside ? { current: undefined, unreadable: undefined } : readable(stored, lifecycle);
  const snapshot = current && restore(lifecycle, current.snapshot);

  const owner = stored.owner ? { id: stored.owner.id, pid: stored.owner.pid, host: stored.owner.host, alive: live?.owner.id === stored.owner.id || isProcessAlive(stored.owner) } : null;
  const accepts = snapshot ? acceptedEvents(snapshot) : [];
  const deadlines = current ? armedDeadlines(current.snapshot) : [];
  const own: LifecycleExplanation =
    (snapshot && stored.status === 'active' && lifecycle.explain?.({ runId, state: stored.state, snapshot: { value: snapshot.value, context: snapshot.context, status: snapshot.status }, now: clock.now() })) || {};
  const agent = own.agent && {
    pid: own.agent.pid,
    alive: isProcessAlive({ pid: own.agent.pid, ...(own.agent.pidStart !== undefined && { pidStart: own.agent.pidStart }), ...(stored.owner && { host: stored.owner.host }) }),
    lastWriteAt: lastWrite(own.agent.logPath),
  };
  const lastRefused: Refusal | undefined = live?.lastRefusal(runId);
  return {
    runId,
    machine: stored.machine,
    state: stored.state,
    status: stored.status,
    since: enteredAt(history as EventRecord[], stored.state, stored.createdAt),
    accepts,
    deadlines,
    owner,
    ...(own.lease && { lease: own.lease }),
    ...(own.waitingFor && own.waitingFor.length > 0 && { waitingFor: own.waitingFor }),
    ...(agent && { agent }),
    ...(lastRefused && { lastRefused }),
    ...(setAside && { setAside }),
    verdict: unreadable ? `cannot be restored: ${unreadable}` : verdict({
      state: stored.state,
      status: stored.status,
      accepts,
      deadlines,
      actors: current ? workingActors(current.snapshot) : [],
      hosted: owner?.alive ?? false,
      ...(setAside && { setAside }),
      ...(own.verdict && { lifecycle: own.verdict }),
    }),
  };
}

/** The run brought up to the lifecycle's version, or why it cannot be (no migration from its version). */
function readable(run: StoredRun, lifecycle: Lifecycle): { current?: StoredRun; unreadable?: string } {
  try {
    return { current: migrate(run, lifecycle) };
  } catch (error) {
    return { unreadable: (error as Error).message };
  }
}

/** The machine snapshot a persisted one stands for, restored without starting anything. */
function restore(lifecycle: Lifecycle, persisted: unknown): AnyMachineSnapshot {
  return createActor(lifecycle.machine, { snapshot: persisted as never }).getSnapshot() as AnyMachineSnapshot;
}

/** A run the runtime set aside (a changed definition stranded it) carries its reason. */
function setAsideOf(run: StoredRun): { reason: string } | undefined {
  const mark = (run as { setAside?: { reason?: unknown } }).setAside;
  return mark && typeof mark.reason === 'string' ? { reason: mark.reason } : undefined;
}

/** When the agent last wrote its log, or null when there is no log to look at. */
function lastWrite(path: string | undefined): number | null {
  if (!path) return null;
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}
