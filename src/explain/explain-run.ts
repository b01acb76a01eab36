import { statSync } from 'node:fs';
import { waitsForExplanation } from './waits-for.js';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import type { Lifecycle, LifecycleExplanation, Lifecycles } from '../../machines/lifecycle.js';
import { acceptedEvents } from '../graph/event-needs.js';
import { ownMoves } from '../graph/own-moves.js';
import { isProcessAlive, thisHost } from '../os/process-identity.js';
import { systemClock, type Clock } from '../actor-contract/clock.js';
import { UnknownMachineError, UnknownRunError } from '../runtime/errors.js';
import { migrate } from '../runtime/migrate.js';
import type { Runtime } from '../runtime/runtime.js';
import type { EventRecord, Store, StoredRun } from '../stores/store.js';
import { afterDeadlines, armedDeadlines } from './armed-deadlines.js';
import { childActors } from './child-actors.js';
import { enteredAt } from './entered-at.js';
import type { Explanation, HostedOn } from './explanation.js';
import { hostLease } from './host-lease.js';
import { severalHostsShare } from './shared-hosts.js';
import type { Refusal } from '../runtime/refusal.js';
import { restoreProblem, setAsideReasonOn } from '../runtime/set-aside.js';
import { verdict } from './verdict.js';

/**
 * Where `explainRun` reads a run: a live runtime (which also knows the last event it refused), or
 * what reads runs and the registry, for a command that runs without a server (a store) or a host
 * that keeps runs elsewhere (a Restate run object reads its own state).
 */
export type ExplainSource = (
  | Runtime
  | {
      readonly store: Pick<Store, 'load' | 'history' | 'leases'>;
      readonly machines: Lifecycles;
      readonly clock?: Clock;
      /** The caller knows no host runs on this store (the CLI found no serve beside it): see `VerdictFacts.noHost`. */
      readonly noHost?: boolean;
      /** The ids of the hosts the caller knows to be live on this store (the serves whose files lie beside it). */
      readonly hosts?: readonly string[];
    }
) &
  ExplainsHosting;

/** A source whose runs an engine hosts (Restate), not a store host: it says where each run lives. */
export interface ExplainsHosting {
  readonly hostedOn?: (run: { readonly runId: string; readonly machine: string }) => HostedOn;
}

/** Lease times are wall clock (`RunLease`), whatever clock the source's workflow time runs on. */
const wallClock = () => Date.now();

/**
 * Why the run is where it is: its state and since when, the events it accepts and what each
 * needs, its armed deadlines, its owner and whether it lives, what its lifecycle adds (approvals,
 * questions, the lease, the agent process), the last refusal, and a one-line verdict. Read from
 * the machine and the committed snapshot; changes nothing. Rejects with `UnknownRunError` for a
 * run the store does not hold.
 */
export async function explainRun(
  source: ExplainSource,
  runId: string,
  options: { readonly verbose?: boolean } = {},
): Promise<Explanation> {
  const live = 'lastRefusal' in source ? source : undefined;
  const machines = live ? live.machines : (source as { machines: Lifecycles }).machines;
  const clock = source.clock ?? systemClock;
  const stored = live ? await live.getSnapshot(runId) : await source.store.load(runId);
  if (!stored) throw new UnknownRunError(runId);
  const lifecycle = Object.hasOwn(machines, stored.machine) ? machines[stored.machine]! : undefined;
  const setAside = setAsideOf(source, stored, clock.now());
  // A live run of a machine the registry lacks is set aside, and explained as such; any other is not its to explain.
  if (!lifecycle && !setAside) throw new UnknownMachineError(stored.machine, Object.keys(machines));
  const history = await source.store.history(runId);
  const { current, unreadable } =
    setAside || !lifecycle ? { current: undefined, unreadable: undefined } : readable(stored, lifecycle);
  const snapshot = current && lifecycle && restore(lifecycle, current.snapshot);

  const owner = stored.owner
    ? {
        id: stored.owner.id,
        pid: stored.owner.pid,
        host: stored.owner.host,
        alive: live?.owner.id === stored.owner.id || isProcessAlive(stored.owner),
      }
    : null;
  const hostedOn = source.hostedOn?.(stored);
  // A live runtime's snapshot is its last commit; renewals move a lease without one: the store has it now.
  const leased = live && source.store.leases ? ((await source.store.load(runId)) ?? stored) : stored;
  const lease = leased.lease && hostLease(leased.lease, wallClock());
  // The live runtime asking is a host of the store itself, holding runs or not.
  const knownHosts = live ? [live.owner.id] : ('hosts' in source && source.hosts) || [];
  const severalHosts =
    lease !== undefined && (options.verbose === true || (await severalHostsShare(source.store, knownHosts)));
  // The holder's process, when its last commit or claim recorded it on this machine: a dead one is taken from at once (`takeFrom`).
  const holderGone =
    lease?.state === 'held' &&
    !lease.expired &&
    owner?.id === lease.holder &&
    owner.host === thisHost() &&
    !owner.alive;
  const accepts = snapshot ? acceptedEvents(snapshot) : [];
  const deadlines = current
    ? [
        ...armedDeadlines(current.snapshot),
        ...(snapshot ? afterDeadlines(snapshot, current.snapshot, stored.updatedAt) : []),
      ].sort((a, b) => a.at - b.at)
    : [];
  const movesOnItsOwn = snapshot ? ownMoves(snapshot) : [];
  const actors = current && snapshot ? childActors(current.snapshot, snapshot) : { awaited: [], spawned: [] };
  const own: LifecycleExplanation =
    snapshot && stored.status === 'active' && lifecycle
      ? {
          ...(lifecycle.waitsFor && waitsForExplanation(lifecycle.waitsFor, stored.state)),
          ...lifecycle.explain?.({
            runId,
            state: stored.state,
            snapshot: { value: snapshot.value, context: snapshot.context, status: snapshot.status },
            now: clock.now(),
          }),
        }
      : {};
  const agent = own.agent && {
    pid: own.agent.pid,
    alive: isProcessAlive({
      pid: own.agent.pid,
      ...(own.agent.pidStart !== undefined && { pidStart: own.agent.pidStart }),
      ...(stored.owner && { host: stored.owner.host }),
    }),
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
    movesOnItsOwn,
    deadlines,
    ...((actors.awaited.length > 0 || actors.spawned.length > 0) && { actors }),
    owner,
    ...(hostedOn && { hostedOn }),
    ...(lease && { hostLease: lease, severalHosts }),
    ...(leased.wakeAt !== undefined && { wakeAt: leased.wakeAt }),
    ...(own.lease && { lease: own.lease }),
    ...(own.waitingFor && own.waitingFor.length > 0 && { waitingFor: own.waitingFor }),
    ...(agent && { agent }),
    ...(lastRefused && { lastRefused }),
    ...(setAside && { setAside }),
    verdict: unreadable
      ? `cannot be restored: ${unreadable}`
      : verdict({
          state: stored.state,
          status: stored.status,
          accepts,
          deadlines,
          movesOnItsOwn,
          actors: actors.awaited,
          spawned: actors.spawned,
          hosted: (owner?.alive ?? false) || hostedOn !== undefined,
          ...(!live && 'noHost' in source && source.noHost && { noHost: true }),
          ...(lease && {
            hosting: {
              lease,
              here: live?.owner.id === lease.holder,
              holderGone,
              severalHosts,
              ...(leased.wakeAt !== undefined && { wakeAt: leased.wakeAt }),
            },
          }),
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

/**
 * Why the run is set aside, if it is: the live runtime's own list, or offline the same rule the
 * runtime applies when it restores (`restoreProblem`), so both answer alike; a live runtime that
 * has not come across the run yet (`setAsideReasonOn`) says what it will find. An ended run is
 * not set aside, whatever a runtime found before it was ended elsewhere.
 */
function setAsideOf(source: ExplainSource, run: StoredRun, now: number): { reason: string } | undefined {
  if (run.status !== 'active') return undefined;
  const live = 'setAside' in source && typeof source.setAside === 'function' ? source : undefined;
  const reason = live ? setAsideReasonOn(live, run, now) : restoreProblem(run, source.machines, now);
  return reason === undefined ? undefined : { reason };
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
