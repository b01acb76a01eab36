import type { PendingDecision } from '../../machines/lifecycle.js';
import type { AcceptedEvent } from '../graph/event-needs.js';
import type { OwnMove } from '../graph/own-moves.js';
import type { Refusal } from '../runtime/refusal.js';
import type { HostLease } from './host-lease.js';

/** A durable timer the run has armed: the child actor's id, the instant it fires and the event it sends. */
export interface ArmedDeadline {
  readonly name: string;
  /** ms since the epoch, on the clock of the runtime that armed it. */
  readonly at: number;
  readonly event?: string;
  /** Where an `after` delay moves the run: its target states ("cancelled", "a or b" for guarded ones). */
  readonly target?: string;
}

/**
 * Where a run lives when no store host holds it: on Restate, its virtual object (`object`, the
 * service `statewright-<lifecycle>`, keyed by the run id), which Restate serves from the worker, who
 * also performs its actors and timers.
 */
export interface HostedOn {
  readonly engine: 'restate';
  readonly object: string;
  readonly key: string;
}

/** Why a run is where it is, and what will move it next (`explainRun`; the JSON of `GET /api/runs/:id/explain`). */
export interface Explanation {
  readonly runId: string;
  readonly machine: string;
  readonly state: string;
  readonly status: string;
  /** ms since the epoch: the step that entered the state (the run's start, if it never left it). */
  readonly since: number;
  /** The events a sender can send that the state takes, with what each needs. */
  readonly accepts: AcceptedEvent[];
  /** What XState does for the run by itself in this state, in words: "after 20 s" -> timedOut, "when both regions of checks finish" -> done. */
  readonly movesOnItsOwn: OwnMove[];
  readonly deadlines: ArmedDeadline[];
  /**
   * Its live child actors (timers aside) by name: `awaited`, the ones it waits on to report (what
   * its states invoke, spawned workers); `spawned`, the child machines it spawned and drives, which
   * run beside it. Absent when it has none.
   */
  readonly actors?: { readonly awaited: string[]; readonly spawned: string[] };
  /** The runtime that last committed to the run, and whether its process still runs. */
  readonly owner: { readonly id: string; readonly pid: number; readonly host: string; readonly alive: boolean } | null;
  /** Where the run lives when it is hosted by an engine rather than a store host (`owner` is then null): its Restate object. */
  readonly hostedOn?: HostedOn;
  /**
   * The host's hold on the run, on a store with leases: which host holds it (or let it go, asleep or
   * handed over), at which epoch, until when, its last heartbeat. Not the task's own `lease` below.
   */
  readonly hostLease?: HostLease;
  /**
   * With `hostLease`: whether to speak of it. Several live hosts hold runs of the store (or the
   * caller asked, `--verbose`); with one host the lease, epoch and heartbeat are left unsaid.
   */
  readonly severalHosts?: boolean;
  /** The run's next deadline as the store's timer index has it: when a sleeping run wakes (the runtime's clock). */
  readonly wakeAt?: number;
  /** The task lifecycle's lease on its work (`Lifecycle.explain`): who claimed the task, until when. */
  readonly lease?: { readonly holder: string; readonly expiresAt: number; readonly lastHeartbeat: number };
  readonly waitingFor?: readonly PendingDecision[];
  readonly agent?: { readonly pid: number; readonly alive: boolean; readonly lastWriteAt: number | null };
  readonly lastRefused?: Refusal;
  readonly setAside?: { readonly reason: string };
  /** One line: what will move the run next and when, or that nothing will without an outside event, from whom. */
  readonly verdict: string;
}
