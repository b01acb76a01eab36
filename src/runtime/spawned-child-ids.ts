import type { AnyActorRef } from 'xstate';
import { parentOf, renameActor } from '../graph/xstate-internals.js';

/**
 * The ids of a run's children spawned without one (`spawn('worker')`, `spawnChild('worker')`).
 * XState names such a child `x:N` from a counter of the whole process, so the same child gets
 * another id in another process, in a replay, or after a restore (where a new child could even
 * take a restored child's id). A run names them by the step that spawned them instead:
 * `x:<seq>.<n>`, the n-th child spawned without an id by step `seq` (0: the start). The live run
 * and its replay (`verify`) name them alike, so the context's references to a child and the log's
 * events from it (`xstate.done.actor.x:3.0`) replay to the same child.
 *
 * Only the root's own children are named so: a grandchild is spawned by its parent's logic, which a
 * replay does not run, and its id is kept in its parent's persisted snapshot like any other.
 */
export class SpawnedChildIds {
  #next = 0;

  /** `seq`: the step the children created from now on are spawned by; undefined while none is applied (a restore). */
  constructor(private seq: number | undefined) {}

  /** The children created from now on are spawned by step `seq`. */
  step(seq: number): void {
    this.seq = seq;
    this.#next = 0;
  }

  /** Told of each actor of the run's system as it is created (`actorsCreated`): names each child of the root. */
  readonly created = (actor: AnyActorRef): void => {
    if (this.seq === undefined) return;
    // Named by the machine, or restored with the id it was stored under.
    if (actor.id !== actor.sessionId) return;
    const parent = parentOf(actor);
    if (parent === undefined || parentOf(parent) !== undefined) return;
    renameActor(actor, `x:${this.seq}.${this.#next++}`);
  };
}
