/**
 * Origin: statelyai/xstate, examples/workflow-filling-water/main.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only, and the demo driver left out (it starts with input `{ current: 0, max: 10 }`).
 */
import { assign, createMachine } from 'xstate';

// https://github.com/serverlessworkflow/specification/blob/main/examples/README.md#filling-a-glass-of-water
export const workflow = createMachine({
  id: 'fillglassofwater',
  types: {} as {
    events: {
      type: 'WaterAddedEvent';
    };
    context: {
      counts: {
        current: number;
        max: number;
      };
    };
    input: {
      current: number;
      max: number;
    };
  },
  initial: 'CheckIfFull',
  context: ({ input }) => ({
    counts: input,
  }),
  states: {
    CheckIfFull: {
      always: [
        {
          target: 'AddWater',
          guard: ({ context }) => context.counts.current < context.counts.max,
        },
        {
          target: 'GlassFull',
        },
      ],
    },
    AddWater: {
      after: {
        500: {
          actions: assign({
            counts: ({ context }) => ({
              ...context.counts,
              current: context.counts.current + 1,
            }),
          }),
          target: 'CheckIfFull',
        },
      },
    },
    GlassFull: {
      type: 'final',
    },
  },
});
