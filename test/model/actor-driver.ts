import { createActor, type Actor, type AnyStateMachine } from 'xstate';
import type { Driver } from './harness.js';

/** Drives a plain XState actor of `machine`: the in-process system under test. */
export function actorDriver(machine: AnyStateMachine, input?: unknown): Driver {
  let actor: Actor<AnyStateMachine> | undefined;
  return {
    async start() {
      actor = createActor(machine, { input });
      actor.start();
      return actor.getSnapshot().value;
    },
    async send(event) {
      actor!.send(event);
      return actor!.getSnapshot().value;
    },
    async stop() {
      actor?.stop();
    },
  };
}
