/**
 * Origin: statelyai/xstate, packages/core/test/invoke.test.ts, the machine of the test "child can immediately respond to the parent with multiple events",
 * commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only; the two machines taken out of the test and exported.
 */
import { assign, createMachine, sendParent, sendTo } from 'xstate';

export const childMachine = createMachine({
  types: {} as {
    events: { type: 'FORWARD_DEC' };
  },
  id: 'child',
  initial: 'init',
  states: {
    init: {
      on: {
        FORWARD_DEC: {
          actions: [sendParent({ type: 'DEC' }), sendParent({ type: 'DEC' }), sendParent({ type: 'DEC' })],
        },
      },
    },
  },
});

export const someParentMachine = createMachine(
  {
    id: 'parent',
    types: {} as {
      context: { count: number };
      actors: {
        src: 'child';
        id: 'someService';
        logic: typeof childMachine;
      };
    },
    context: { count: 0 },
    initial: 'start',
    states: {
      start: {
        invoke: {
          src: 'child',
          id: 'someService',
        },
        always: {
          target: 'stop',
          guard: ({ context }) => context.count === -3,
        },
        on: {
          DEC: {
            actions: assign({ count: ({ context }) => context.count - 1 }),
          },
          FORWARD_DEC: {
            actions: sendTo('someService', { type: 'FORWARD_DEC' }),
          },
        },
      },
      stop: {
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
