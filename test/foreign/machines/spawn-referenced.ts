/**
 * Origin: statelyai/xstate, packages/core/test/actor.test.ts, the machine of the test "should spawn referenced machines",
 * commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only; the two machines taken out of the test and exported.
 */
import { type AnyActorRef, assign, createMachine, sendParent } from 'xstate';

export const childMachine = createMachine({
  entry: sendParent({ type: 'DONE' }),
});

export const spawnReferenced = createMachine(
  {
    context: {
      ref: null! as AnyActorRef,
    },
    initial: 'waiting',
    states: {
      waiting: {
        entry: assign({
          ref: ({ spawn }) => spawn('child'),
        }),
        on: {
          DONE: 'success',
        },
      },
      success: {
        type: 'final',
      },
    },
  },
  {
    actors: {
      child: childMachine,
    },
  },
);
