/**
 * Stand-ins for actors that must not run in a test (an agent, a payment): each is a promise actor
 * that does nothing until the path needs it to finish, then answers done (with the output the path
 * gives) or error. One set per host (plain XState, statewright), keyed by the actor's id, the id its
 * `xstate.done.actor.<id>` event names; a restored run's actor registers again under the same id.
 */
import { fromPromise, type AnyActorLogic } from 'xstate';

type Answer = { done: unknown } | { error: unknown };

export class StubActors {
  readonly #pending = new Map<string, { resolve: (output: unknown) => void; reject: (error: unknown) => void }>();
  readonly #waiting = new Map<string, () => void>();

  /** The stand-in logic, the same for every name. */
  readonly logic: AnyActorLogic = fromPromise<unknown, unknown>(
    ({ self }) =>
      new Promise((resolve, reject) => {
        this.#pending.set(self.id, { resolve, reject });
        this.#waiting.get(self.id)?.();
      }),
  );

  /** Whether an actor of this id is waiting for its answer. */
  has(id: string): boolean {
    return this.#pending.has(id);
  }

  /** Answers the actor `id` (done with an output, or error); false when no stand-in of that id is running. */
  answer(id: string, answer: Answer): boolean {
    const pending = this.#pending.get(id);
    if (!pending) return false;
    this.#pending.delete(id);
    if ('done' in answer) pending.resolve(answer.done);
    else pending.reject(answer.error);
    return true;
  }

  /** Resolves once an actor of this id has started (at once if it has). */
  started(id: string): Promise<void> {
    if (this.#pending.has(id)) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.set(id, resolve));
  }
}

/** What the event `xstate.done.actor.<id>` or `xstate.error.actor.<id>` asks of actor `id`, if it is one of those. */
export function actorAnswer(event: {
  type: string;
  output?: unknown;
  error?: unknown;
}): { id: string; answer: Answer } | undefined {
  const done = /^xstate\.done\.actor\.(.+)$/.exec(event.type);
  if (done) return { id: done[1]!, answer: { done: event.output } };
  const error = /^xstate\.error\.actor\.(.+)$/.exec(event.type);
  if (error)
    return { id: error[1]!, answer: { error: event.error ?? new Error('the stand-in failed, as the path asks') } };
  return undefined;
}
