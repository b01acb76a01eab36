/**
 * Leases on a task, as pure functions of the lease, the agent and the time (ms on the runtime's
 * clock), so that the task machine can use them as guards and actions and the same events always
 * give the same answer.
 *
 * A lease is a claim on one role's seat: "only one executor works on a task at a time". The holder
 * keeps it alive by heartbeats; a lease whose `leaseUntil` has come (no heartbeat for a TTL) is dead
 * and another agent of the role may take it. A lease binds only agents of the holder's role, so a
 * supervisor answering a consultation is not stopped by the executor's lease.
 */
import { InvalidTransitionError } from '../../src/graph/invalid-transition-error.js';
import type { AgentId } from './agent.js';
import { MAX_DURATION_MS } from '../duration.js';

export interface Lease {
  /** `role:vendor:index` of the holder. */
  readonly claimedBy: AgentId;
  /** The lease is dead from this instant on (ms since the epoch). */
  readonly leaseUntil: number;
  readonly lastHeartbeat: number;
}

/** Why a lease operation or an action was refused; `code` as ferrus's heartbeat tool reports it. */
export type LeaseRefusal =
  | { readonly ok: false; readonly code: 'not_claimed'; readonly message: string }
  | {
      readonly ok: false;
      readonly code: 'claimed_by_other';
      readonly holder: AgentId;
      readonly leaseUntil: number;
      readonly message: string;
    }
  | { readonly ok: false; readonly code: 'expired'; readonly expiredAt: number; readonly message: string };

export interface LeaseGrant {
  readonly ok: true;
  readonly lease: Lease;
  /** claimed: it was free; reclaimed: the holder claimed again; taken_over: another's lease had expired; renewed: a heartbeat. */
  readonly outcome: 'claimed' | 'reclaimed' | 'taken_over' | 'renewed';
}

const roleOfAgent = (agent: string) => agent.slice(0, agent.indexOf(':'));
// A lease stored before durations were bounded may end past what a Date can show.
const iso = (ms: number) =>
  Number.isFinite(new Date(ms).getTime()) ? new Date(ms).toISOString() : `${ms} ms after 1970 (past the last date)`;
/** A run stored before durations were bounded (`ttlMs: 9e15`) still gets a lease that ends on a date. */
const until = (now: number, ttlMs: number) => now + Math.min(ttlMs, MAX_DURATION_MS);

/** Whether `lease` is held at `now`: it exists and its time has not come. */
export function isLive(lease: Lease | undefined, now: number): lease is Lease {
  return lease !== undefined && now < lease.leaseUntil;
}

/**
 * `agent` claims the task for `ttlMs`. Free, expired or already its own (an idempotent re-claim,
 * which extends it), the lease becomes `agent`'s; live and someone else's, it is refused.
 */
export function claimLease(
  current: Lease | undefined,
  agent: AgentId,
  now: number,
  ttlMs: number,
): LeaseGrant | LeaseRefusal {
  if (current && current.claimedBy !== agent && isLive(current, now)) return heldByOther(current);
  const outcome = !current ? 'claimed' : current.claimedBy === agent ? 'reclaimed' : 'taken_over';
  return { ok: true, lease: { claimedBy: agent, leaseUntil: until(now, ttlMs), lastHeartbeat: now }, outcome };
}

/**
 * A heartbeat from `agent`: renews its live lease for another `ttlMs`. Refused with `not_claimed`
 * when nobody holds the task, `claimed_by_other` when another agent does (even on an expired lease:
 * the way in is a claim), and `expired` when the lease was the agent's but its time has come.
 */
export function renewLease(
  current: Lease | undefined,
  agent: AgentId,
  now: number,
  ttlMs: number,
): LeaseGrant | LeaseRefusal {
  if (!current)
    return {
      ok: false,
      code: 'not_claimed',
      message: `${agent} holds no lease: nobody has claimed the task. Claim it first.`,
    };
  if (current.claimedBy !== agent) return heldByOther(current);
  if (!isLive(current, now)) return expired(current);
  return {
    ok: true,
    lease: { claimedBy: agent, leaseUntil: until(now, ttlMs), lastHeartbeat: now },
    outcome: 'renewed',
  };
}

/**
 * Whether `agent` may change the task at `now`. Agents of another role than the holder's are not
 * bound by the lease, nor is anyone when there is none. Of the holder's role, only the holder may,
 * and only while its lease lives: a process whose lease expired, or was taken over, cannot.
 * A dead lease of another agent binds no one: the way it was left, anyone of the role may go on.
 */
export function mayChange(
  current: Lease | undefined,
  agent: AgentId,
  now: number,
): { readonly ok: true } | LeaseRefusal {
  if (!current || roleOfAgent(current.claimedBy) !== roleOfAgent(agent)) return { ok: true };
  if (current.claimedBy === agent) return isLive(current, now) ? { ok: true } : expired(current);
  return isLive(current, now) ? heldByOther(current) : { ok: true };
}

function heldByOther(current: Lease): LeaseRefusal {
  return {
    ok: false,
    code: 'claimed_by_other',
    holder: current.claimedBy,
    leaseUntil: current.leaseUntil,
    message: `The task is claimed by ${current.claimedBy} until ${iso(current.leaseUntil)} (unless renewed).`,
  };
}

function expired(current: Lease): LeaseRefusal {
  return {
    ok: false,
    code: 'expired',
    expiredAt: current.leaseUntil,
    message: `The lease of ${current.claimedBy} expired at ${iso(current.leaseUntil)}. Claim the task again.`,
  };
}

/**
 * An event refused because of a lease: the agent lost it (expired, or taken over) or someone else
 * holds it. An `InvalidTransitionError`, so callers that handle refusals handle this one too; it
 * carries the code (as ferrus's heartbeat reports it), the holder and the expiry.
 */
export class LeaseError extends InvalidTransitionError {
  override readonly name = 'LeaseError';
  readonly code: LeaseRefusal['code'];
  /** Who holds the task, when someone else does. */
  readonly holder: AgentId | undefined;
  /** When the holder's lease runs out (claimed_by_other) or ran out (expired), ms since the epoch. */
  readonly leaseUntil: number | undefined;

  constructor(
    state: string,
    event: string,
    /** The agent whose event was refused. */
    readonly agent: string,
    refusal: LeaseRefusal,
  ) {
    super(
      state,
      event,
      `Lease refused (${refusal.code}): ${agent} may not ${event} in state '${state}'. ${refusal.message}`,
    );
    this.code = refusal.code;
    this.holder = refusal.code === 'claimed_by_other' ? refusal.holder : undefined;
    this.leaseUntil =
      refusal.code === 'claimed_by_other'
        ? refusal.leaseUntil
        : refusal.code === 'expired'
          ? refusal.expiredAt
          : undefined;
  }
}
