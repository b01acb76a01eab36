import type { AnyActorLogic } from 'xstate';
import type { Clock } from './clock.js';

export interface SendOptions {
  /** Who sent it (a role, a user, "timer", "agent"): recorded in the audit trail. */
  actor?: string;
  /** Why: recorded in the audit trail. */
  reason?: string;
  /**
   * The credential the event came with, named by the host that checked it (serve: `user-token`,
   * `session:<id>`): recorded in the audit trail beside `actor`. Set by that host from the
   * credential, never from a request's body.
   */
  credential?: string;
  /** An event with a key that was already applied to this run returns the first result and applies nothing. */
  idempotencyKey?: string;
  /**
   * For events that may race the state they were meant for (a timer firing as the run leaves the
   * state): if the run no longer accepts it, drop it quietly instead of reporting an error.
   */
  ifAccepted?: boolean;
}

/** An event as callers send it: a `type` and any JSON payload. The runtime stamps `at` if absent. */
export interface RunEvent {
  type: string;
  [key: string]: unknown;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * What an actor started by a run may use. Actors never talk to their parent machine directly:
 * everything they report goes through `send`, so it is queued, committed and audited like any
 * other event, and survives a crash.
 */
export interface RunHandle {
  readonly runId: string;
  readonly machine: string;
  readonly clock: Clock;
  send<E extends { type: string }>(event: E, options?: SendOptions): void;
  /**
   * Runs `effect` once the step being applied now is durably committed (at once after a restore
   * with nothing to commit); never, if that commit fails and the run is rolled back. Actors start
   * real work (spawning a process) through this, so nothing happens that the store does not know.
   * An actor stopped before then should ignore the call: check a `stopped` flag in the effect.
   */
  afterCommit(effect: () => void): void;
  /**
   * How a stopped actor ends what it runs (signals its process, kills its check): `effect` runs
   * once the step that stopped the actor is durable, so a step that never commits has no effect.
   * An actor is stopped as the machine leaves its state in memory, before that step is committed:
   * let go at once (report nothing more), and end the work here. If the step is rolled back (its
   * commit refused), `effect` runs while the actor is replaced by one restored from the store, with
   * `handingOver` true: leave alone what the restored actor adopts (an agent process), end what it
   * starts anew (a check). If the host dies first, it never runs, and the next host adopts. Outside
   * a step (the runtime closing, the run unloaded, a hand-over) it runs at once.
   */
  afterStop(effect: () => void): void;
  log(level: LogLevel, message: string, data?: Record<string, unknown>): void;
  /**
   * True while the runtime replaces this run's actor with one restored from its last committed
   * snapshot (a commit failed, or the machine threw), or while a closing runtime hands its runs
   * over to the next host (`close({ handOver: true })`), or while a host that lost the run to another
   * stops its actors (the new holder adopts, or ends, what they ran). An actor stopped then should let go of
   * what it runs rather than end it: the restored actor takes it over (an agent process is adopted).
   */
  readonly handingOver?: boolean;
}

/** Builds the real implementation of a named actor for one run; given to the runtime as `actors`. */
export type ActorFactory = (run: RunHandle) => AnyActorLogic;

/** Actor factories by machine name, then by the actor's name in that machine's `setup({ actors })`. */
export type MachineActors = Readonly<Record<string, Readonly<Record<string, ActorFactory>>>>;
