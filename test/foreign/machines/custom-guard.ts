/**
 * Origin: statelyai/xstate, packages/core/test/guards.test.ts, the machine of the test "should evaluate custom guards",
 * commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only; the machine taken out of the test and exported.
 */
import { createMachine } from 'xstate';

interface Ctx {
  count: number;
}
interface Events {
  type: 'EVENT';
  value: number;
}
export const customGuard = createMachine(
  {
    types: {} as {
      context: Ctx;
      events: Events;
      guards: {
        type: 'custom';
        params: {
          prop: keyof Ctx;
          op: 'greaterThan';
          compare: number;
        };
      };
    },
    initial: 'inactive',
    context: {
      count: 0,
    },
    states: {
      inactive: {
        on: {
          EVENT: {
            target: 'active',
            guard: {
              type: 'custom',
              params: { prop: 'count', op: 'greaterThan', compare: 3 },
            },
          },
        },
      },
      active: {},
    },
  },
  {
    guards: {
      custom: ({ context, event }, params) => {
        const { prop, compare, op } = params;
        if (op === 'greaterThan') {
          return context[prop] + event.value > compare;
        }

        return false;
      },
    },
  },
);
