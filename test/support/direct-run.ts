import { createActor, type AnyStateMachine, type EventObject } from 'xstate';
import { explainRejection } from '../../src/graph/index.js';
import { systemClock, type Clock } from '../../src/runtime/clock.js';
import type { ActorFactory, RunHandle, SendOptions } from '../../src/runtime/run-handle.js';

/**
 * Hosts one machine in memory the way the runtime's contract describes, minus durability: sends
 * are queued and applied one at a time after the current step, stamped with `at`, refused events
 * are explained (or dropped quietly with `ifAccepted`), and repeated idempotency keys apply
 * nothing. For end-to-end tests of a lifecycle with its real actors; the durable runtime replaces it.
 */
export function hostInMemory(machine: AnyStateMachine, input: unknown, actors: Record<string, ActorFactory>, options: { runId: string; clock?: Clock }) {
  const clock = options.clock ?? systemClock;
  const queue: Array<{ event: EventObject; options: SendOptions | undefined }> = [];
  const applied: EventObject[] = [];
  const refused: Array<{ event: EventObject; error: Error }> = [];
  const logs: string[] = [];
  const keys = new Set<string>();
  let scheduled = false;

  const run: RunHandle = {
    runId: options.runId,
    machine: machine.id,
    clock,
    send(event, sendOptions) {
      queue.push({ event, options: sendOptions });
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
    },
    afterCommit: (effect) => queueMicrotask(effect),
    log: (level, message) => void logs.push(`${level}: ${message}`),
  };
  const provided = machine.provide({ actors: Object.fromEntries(Object.entries(actors).map(([name, factory]) => [name, factory(run)])) });
  const actor = createActor(provided, { input });

  function drain() {
    scheduled = false;
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { event, options: sendOptions } = next;
      const key = sendOptions?.idempotencyKey;
      if (key && keys.has(key)) continue;
      const stamped = { ...event, at: (event as { at?: number }).at ?? clock.now() };
      const snapshot = actor.getSnapshot();
      if (snapshot.status !== 'active' || !snapshot.can(stamped)) {
        if (!sendOptions?.ifAccepted) refused.push({ event, error: explainRejection(snapshot, stamped) });
        continue;
      }
      if (key) keys.add(key);
      applied.push(stamped);
      actor.send(stamped);
    }
  }

  /** Resolves with the output once the machine reaches a final state; rejects if it errors or takes too long. */
  const done = (timeoutMs = 20_000) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not done after ${timeoutMs} ms; in ${JSON.stringify(actor.getSnapshot().value)}; applied ${applied.map((e) => e.type).join(', ')}`)), timeoutMs);
      const check = (snapshot: any) => {
        if (snapshot.status === 'done') resolve(snapshot.output);
        else if (snapshot.status === 'error') reject(snapshot.error);
        else return;
        clearTimeout(timer);
      };
      actor.subscribe({ next: check, error: reject });
      check(actor.getSnapshot());
    });

  return { actor, run, applied, refused, logs, done, start: () => actor.start() };
}
