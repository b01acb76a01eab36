/**
 * The config the cluster test's worker reads (`statewright worker --config`): a lifecycle of the
 * user's own, a reminder due at the time its input gives (a `deadline` actor: `DUE` fires once, as a
 * Restate delayed call), pinged any number of times while it waits.
 */
import { assign, fromCallback, setup } from 'xstate';

const reminder = setup({
  actors: { deadline: fromCallback(() => {}) },
}).createMachine({
  id: 'reminder',
  initial: 'waiting',
  context: ({ input }) => ({ dueAt: input.dueAt, pings: 0 }),
  states: {
    waiting: {
      invoke: { src: 'deadline', input: ({ context }) => ({ deadline: context.dueAt, event: { type: 'DUE' } }) },
      on: {
        DUE: 'due',
        PING: { actions: assign({ pings: ({ context }) => context.pings + 1 }) },
      },
    },
    due: { on: { PING: { actions: assign({ pings: ({ context }) => context.pings + 1 }) } } },
  },
});

export default {
  machines: [{ name: 'reminder', machine: reminder, version: 1, summary: 'a reminder, due at a given time' }],
};
