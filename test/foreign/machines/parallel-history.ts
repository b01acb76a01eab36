/**
 * Origin: statelyai/xstate, packages/core/test/history.test.ts, the machine of the test "should re-enter multiple history states",
 * commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only; the machine taken out of the test and exported.
 */
import { createMachine } from 'xstate';

export const parallelHistory = createMachine({
  initial: 'off',
  states: {
    off: {
      on: {
        SWITCH: 'on',
        PARALLEL_HISTORY: [{ target: ['on.A.hist', 'on.K.hist'] }],
      },
    },
    on: {
      type: 'parallel',
      states: {
        A: {
          initial: 'B',
          states: {
            B: {
              on: { INNER_A: 'C' },
            },
            C: {
              initial: 'D',
              states: {
                D: {
                  on: { INNER_A: 'E' },
                },
                E: {},
              },
            },
            hist: { history: true },
            deepHistory: {
              history: 'deep',
            },
          },
        },
        K: {
          initial: 'L',
          states: {
            L: {
              on: { INNER_K: 'M' },
            },
            M: {
              initial: 'N',
              states: {
                N: {
                  on: { INNER_K: 'O' },
                },
                O: {},
              },
            },
            hist: { history: true },
            deepHistory: {
              history: 'deep',
            },
          },
        },
        hist: {
          history: true,
        },
        shallowHistory: {
          history: 'shallow',
        },
        deepHistory: {
          history: 'deep',
        },
      },
      on: {
        POWER: 'off',
      },
    },
  },
});
