import type { AcceptedEvent } from '../graph/event-needs.js';
import { moveWords, type OwnMove } from '../graph/own-moves.js';
import type { ArmedDeadline } from './explanation.js';
import { span, type HostLease } from './host-lease.js';

/** What the verdict is drawn from: the parts of an explanation that say what can move the run. */
export interface VerdictFacts {
  readonly state: string;
  readonly status: string;
  readonly accepts: readonly AcceptedEvent[];
  readonly deadlines: readonly ArmedDeadline[];
  /** The moves XState makes for the run by itself (`ownMoves`): its `after` delays count as timers. */
  readonly movesOnItsOwn?: readonly OwnMove[];
  /** The live child actors the run waits on (not timers), by the names a person knows: their reports move the run. */
  readonly actors: readonly string[];
  /** The live children it spawned and does not wait on (child machines driven through it), by name. */
  readonly spawned?: readonly string[];
  /** Whether a live runtime hosts the run (its actors and timers run only there); on a store with leases, `hosting` says more. */
  readonly hosted: boolean;
  /**
   * True when the caller knows that no host runs on the run's store (the CLI found no serve beside
   * it): a run whose timers or actors must run then says to start one, rather than who takes it over.
   */
  readonly noHost?: boolean;
  /**
   * On a store with leases: the run's lease, whether the asking runtime holds it, whether its
   * holder's process is known gone, and whether several hosts share the store (else a run the one
   * host holds, or one asleep in the store, is not said to be: that host is just "the host").
   */
  readonly hosting?: {
    readonly lease: HostLease;
    readonly here: boolean;
    readonly holderGone: boolean;
    readonly wakeAt?: number;
    readonly severalHosts?: boolean;
  };
  readonly setAside?: { readonly reason: string };
  /** The lifecycle's own verdict, when it has one (`Lifecycle.explain`). */
  readonly lifecycle?: string;
}

const instant = (ms: number) => new Date(ms).toISOString();

/**
 * The run's timers, soonest first, each as one phrase: the next armed deadline ("START_TIMEOUT at
 * 2026-01-01T09:01:00.000Z"; an `after` delay, named in words, with where it leads: "after 20 s ->
 * timedOut, due at ..."), then the `after` delays of its state no deadline stands for (their
 * instant unknown: "after managerTimeout (20 s) -> timedOut").
 */
function timers(facts: VerdictFacts): string[] {
  const afters = (facts.movesOnItsOwn ?? []).filter((move) => move.event.startsWith('xstate.after.'));
  const first = facts.deadlines[0];
  const shown: string[] = [];
  if (first)
    shown.push(
      first.target !== undefined && first.event === undefined
        ? `${first.name} -> ${first.target}, due at ${instant(first.at)}`
        : `${first.event ?? first.name} at ${instant(first.at)}`,
    );
  // An `after` deadline is named by the words of its event (afterDeadlines), as its move is labelled.
  const armed = new Set(facts.deadlines.map((d) => d.name));
  for (const move of afters) if (!armed.has(move.label)) shown.push(moveWords(move));
  return shown;
}

/** "APPROVAL_RESOLVED, INTERRUPT (from supervisor)": the outside events and who may send them. */
export function outsideEvents(accepts: readonly AcceptedEvent[]): string {
  if (accepts.length === 0) return 'none';
  return accepts
    .map((a) => (a.needs.roles?.length ? `${a.type} (from ${a.needs.roles.join(' or ')})` : a.type))
    .join(', ');
}

/**
 * One line: what will move the run next and when, or that nothing will without an outside event
 * and from whom. A finished run, a set-aside run and a run nobody hosts say so first; on a store
 * with leases, so does a run whose host stopped renewing, one asleep, and one another host holds.
 */
export function verdict(facts: VerdictFacts): string {
  if (facts.setAside) return `set aside: ${facts.setAside.reason}; a registered migration or a person must move it on`;
  if (facts.status !== 'active') return `finished (${facts.status}) in '${facts.state}': nothing will move it again`;
  // Asleep with nothing a host would do (no timer, no actor): its next event, whoever sends it, is all that moves it.
  const needsHost = facts.actors.length > 0 || timers(facts).length > 0;
  const idle = facts.hosting?.lease.state === 'released' && facts.hosting.wakeAt === undefined && !needsHost;
  // A host holds it now (here, or a live one elsewhere): that host runs its timers and actors.
  const heldLive =
    facts.hosting?.lease.state === 'held' &&
    (facts.hosting.here || (!facts.hosting.lease.expired && !facts.hosting.holderGone));
  // With nothing for a host to run, who takes the run over (its recovery rule) still says something.
  if (facts.noHost && !heldLive && needsHost) return unhostedPrefix(facts) + next(facts);
  if (facts.hosting && !idle) return hostingPrefix(facts.hosting) + next(facts);
  if (facts.hosting) return next(facts);
  // Actors and timers run only in a live host: say so before what they would do.
  return (!facts.hosted && needsHost ? unhostedPrefix(facts) : '') + next(facts);
}

/** What must run in a host, and the fix: "no live process hosts it, and its timer fires only in one: start `statewright serve` ...". */
function unhostedPrefix(facts: VerdictFacts): string {
  const timed = timers(facts).length > 0;
  const actors = facts.actors.length;
  const what =
    actors === 0
      ? 'its timer fires'
      : `${timed ? 'its timer and ' : ''}${facts.actors.join(', ')} ${timed || actors > 1 ? 'run' : 'runs'}`;
  const fix = actors === 0 ? 'fire it' : timed || actors > 1 ? 'run them' : 'run it';
  return `no live process hosts it, and ${what} only in one: start \`statewright serve\` on its store to ${fix}; then: `;
}

/** Who hosts a leased run, or who will: said before what moves it. */
function hostingPrefix({
  lease,
  here,
  holderGone,
  wakeAt,
  severalHosts,
}: NonNullable<VerdictFacts['hosting']>): string {
  const heartbeat = `last heartbeat ${span(lease.heartbeatAgeMs)} ago`;
  // One host: asleep or held, its runs are simply its own; what moves the run (its timers included) says the rest.
  const shown = lease.state === 'released' || (lease.state === 'held' && !lease.expired && !holderGone);
  if (!severalHosts && shown) return '';
  if (lease.state === 'handedOver')
    return `handed over by '${lease.holder}' in a graceful stop: the next sweep of any host adopts it with its agents; then: `;
  if (lease.state === 'released') {
    const wakes =
      wakeAt === undefined
        ? 'its next event wakes it'
        : `its next event wakes it, or its deadline at ${instant(wakeAt)} (by the sweep of any host)`;
    return `asleep in the store (released by '${lease.holder}'): ${wakes}; then: `;
  }
  if (lease.expired) {
    return `its host '${lease.holder}' stopped renewing its lease (expired at ${instant(lease.expiresAt)}, ${heartbeat}): taken over at the next sweep of any host, which applies its recovery rule; then: `;
  }
  if (here) return '';
  if (holderGone) {
    return `its host '${lease.holder}' is gone (its process on this machine ended): taken over at the next sweep of a host on this machine, or of any host once its lease runs out at ${instant(lease.expiresAt)}; then: `;
  }
  return `hosted by the live host '${lease.holder}' (epoch ${lease.epoch}, ${heartbeat}; send its events there): `;
}

function next(facts: VerdictFacts): string {
  if (facts.lifecycle) return facts.lifecycle;
  const timed = timers(facts);
  const beside = spawnedNote(facts);
  if (facts.actors.length > 0) {
    const timer = timed.length > 0 ? `, or ${timed.join(', or ')}` : '';
    return `waiting for ${facts.actors.join(', ')} to report${timer}${beside}`;
  }
  if (timed.length > 0 && facts.accepts.length === 0)
    return `${timed.join(', or ')} moves it: it takes no outside event${beside}`;
  if (timed.length > 0)
    return `${timed.join(', or ')} moves it unless an outside event comes first: ${outsideEvents(facts.accepts)}${beside}`;
  if (facts.accepts.length === 0) return `stuck in '${facts.state}': it accepts no event and has no timer${beside}`;
  return `nothing will move it without an outside event: ${outsideEvents(facts.accepts)}${beside}`;
}

/**
 * The children it spawned and does not wait on, said apart from what moves it: "; friend-ada runs
 * beside it (spawned; when friend-ada is done -> over)". XState moves the run on such a child's
 * events only where a state says so.
 */
function spawnedNote(facts: VerdictFacts): string {
  const spawned = facts.spawned ?? [];
  if (spawned.length === 0) return '';
  const moves = (facts.movesOnItsOwn ?? []).filter((move) =>
    spawned.some((name) => move.label.startsWith(`when ${name} `)),
  );
  const when = moves.length > 0 ? `; ${moves.map(moveWords).join('; ')}` : '';
  return `; ${spawned.join(', ')} ${spawned.length === 1 ? 'runs' : 'run'} beside it (spawned, not waited on${when})`;
}
