import type { AcceptedEvent } from '../graph/event-needs.js';
import type { ArmedDeadline } from './explanation.js';
import { span, type HostLease } from './host-lease.js';

/** What the verdict is drawn from: the parts of an explanation that say what can move the run. */
export interface VerdictFacts {
  readonly state: string;
  readonly status: string;
  readonly accepts: readonly AcceptedEvent[];
  readonly deadlines: readonly ArmedDeadline[];
  /** Live child actors that are not timers: their reports move the run. */
  readonly actors: readonly string[];
  /** Whether a live runtime hosts the run (its actors and timers run only there); on a store with leases, `hosting` says more. */
  readonly hosted: boolean;
  /** On a store with leases: the run's lease, whether the asking runtime holds it, and whether its holder's process is known gone. */
  readonly hosting?: {
    readonly lease: HostLease;
    readonly here: boolean;
    readonly holderGone: boolean;
    readonly wakeAt?: number;
  };
  readonly setAside?: { readonly reason: string };
  /** The lifecycle's own verdict, when it has one (`Lifecycle.explain`). */
  readonly lifecycle?: string;
}

const instant = (ms: number) => new Date(ms).toISOString();

/** The next deadline, as "START_TIMEOUT at 2026-01-01T09:01:00.000Z". */
const nextDeadline = (deadlines: readonly ArmedDeadline[]) => {
  const first = deadlines[0]!;
  return `${first.event ?? first.name} at ${instant(first.at)}`;
};

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
  const idle =
    facts.hosting?.lease.state === 'released' &&
    facts.hosting.wakeAt === undefined &&
    facts.deadlines.length === 0 &&
    facts.actors.length === 0;
  if (facts.hosting && !idle) return hostingPrefix(facts.hosting) + next(facts);
  if (facts.hosting) return next(facts);
  // Actors and timers run only in a live host: say so before what they would do.
  const unhosted =
    !facts.hosted && (facts.actors.length > 0 || facts.deadlines.length > 0)
      ? 'no live process hosts it: nothing moves until one does (`statewright serve` on its store); then: '
      : '';
  return unhosted + next(facts);
}

/** Who hosts a leased run, or who will: said before what moves it. */
function hostingPrefix({ lease, here, holderGone, wakeAt }: NonNullable<VerdictFacts['hosting']>): string {
  const heartbeat = `last heartbeat ${span(lease.heartbeatAgeMs)} ago`;
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
  if (facts.actors.length > 0) {
    const timer = facts.deadlines.length > 0 ? `, or ${nextDeadline(facts.deadlines)}` : '';
    return `waiting for ${facts.actors.join(', ')} to report${timer}`;
  }
  if (facts.deadlines.length > 0)
    return `${nextDeadline(facts.deadlines)} moves it unless an outside event comes first: ${outsideEvents(facts.accepts)}`;
  if (facts.accepts.length === 0) return `stuck in '${facts.state}': it accepts no event and has no timer`;
  return `nothing will move it without an outside event: ${outsideEvents(facts.accepts)}`;
}
