/**
 * Origin: statelyai/xstate, examples/stopwatch/src/stopwatchMachine.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: none to the machine. The corpus gives the `ticks` actor (a 10 ms setInterval sending `TICK`) a stand-in through `provide` that sends nothing: the paths send `TICK` as the interval would.
 */
import { assign, fromCallback, setup } from 'xstate';

export const stopwatchMachine = setup({
  actors: {
    ticks: fromCallback(({ sendBack }) => {
      const interval = setInterval(() => {
        sendBack({ type: 'TICK' });
      }, 10);
      return () => clearInterval(interval);
    }),
  },
}).createMachine({
  id: 'stopwatch',
  initial: 'stopped',
  context: {
    elapsed: 0,
  },
  states: {
    stopped: {
      on: {
        start: 'running',
      },
    },
    running: {
      invoke: {
        src: 'ticks',
      },
      on: {
        TICK: {
          actions: assign({
            elapsed: ({ context }) => context.elapsed + 1,
          }),
        },
        stop: 'stopped',
      },
    },
  },
  on: {
    reset: {
      actions: assign({
        elapsed: 0,
      }),
      target: '.stopped',
    },
  },
});

/** The corpus's: no interval; the paths send `TICK`. */
export const stopwatch = stopwatchMachine.provide({ actors: { ticks: fromCallback(() => {}) } });
