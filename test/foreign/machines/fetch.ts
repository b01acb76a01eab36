/**
 * Origin: statelyai/xstate, examples/fetch/src/fetchMachine.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports: `getGreeting` (from the example's index.ts: a 1 s setTimeout that fails half the time at random) replaced by the stand-ins below, given through `provide`: one that answers, one that fails.
 */
import { assign, fromPromise, setup } from 'xstate';

/** The example's getGreeting (a 1 s setTimeout failing half the time) is not kept: the corpus gives fetchUser below. */
const getGreeting = (name: string): Promise<{ greeting: string }> =>
  Promise.reject(new Error(`getGreeting(${name}) is given by the corpus`));

export const fetchMachine = setup({
  types: {
    context: {} as {
      name: string;
      data: {
        greeting: string;
      } | null;
    },
  },
  actors: {
    fetchUser: fromPromise(({ input }: { input: { name: string } }) => getGreeting(input.name)),
  },
}).createMachine({
  initial: 'idle',
  context: {
    name: 'World',
    data: null,
  },
  states: {
    idle: {
      on: {
        FETCH: 'loading',
      },
    },
    loading: {
      invoke: {
        src: 'fetchUser',
        input: ({ context }) => ({ name: context.name }),
        onDone: {
          target: 'success',
          actions: assign({
            data: ({ event }) => event.output,
          }),
        },
        onError: 'failure',
      },
    },
    success: {},
    failure: {
      after: {
        1000: 'loading',
      },
      on: {
        RETRY: 'loading',
      },
    },
  },
});

/** The corpus's: the greeting arrives at once. */
export const fetchAnswering = fetchMachine.provide({
  actors: {
    fetchUser: fromPromise(async ({ input }: { input: { name: string } }) => ({ greeting: `Hello, ${input.name}!` })),
  },
});

/** The corpus's: the fetch fails every time (the example's getGreeting rejects with nothing). */
export const fetchFailing = fetchMachine.provide({
  actors: {
    fetchUser: fromPromise(async ({ input }: { input: { name: string } }): Promise<{ greeting: string }> => {
      throw new Error(`no greeting for ${input.name}: the network is down`);
    }),
  },
});
