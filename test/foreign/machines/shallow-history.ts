/**
 * Origin: statelyai/xstate, packages/core/test/history.test.ts, the machine of the test "should go to the shallow history",
 * commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only; the machine taken out of the test and exported.
 */
import { createMachine } from 'xstate';

export const shallowHistory = createMachine({
  initial: 'on',
  states: {
    off: {
      on: {
        POWER: 'on.history',
      },
    },
    on: {
      initial: 'first',
      states: {
        first: {
          on: { SWITCH: 'second' },
        },
        second: {
          initial: 'A',
          states: {
            A: {
              on: { INNER: 'B' },
            },
            B: {
              initial: 'P',
              states: {
                P: {},
                Q: {},
              },
            },
          },
        },
        history: { history: 'shallow' },
      },
      on: {
        POWER: 'off',
      },
    },
  },
});
