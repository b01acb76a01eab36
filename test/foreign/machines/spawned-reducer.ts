/**
 * Origin: statelyai/xstate, packages/core/test/actorLogic.test.ts, the machine of the test "should persist a spawned actor with referenced src",
 * commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only; the machine taken out of the test and exported.
 */
import { type AnyActorRef, createMachine, fromTransition } from 'xstate';

const reducer = fromTransition((s) => s, { count: 42 });
export const spawnedReducer = createMachine({
  types: {
    context: {} as {
      ref: AnyActorRef;
    },
    actors: {} as {
      src: 'reducer';
      logic: typeof reducer;
      ids: 'child';
    },
  },
  context: ({ spawn }) => ({
    ref: spawn('reducer', { id: 'child' }),
  }),
}).provide({
  actors: {
    reducer,
  },
});
