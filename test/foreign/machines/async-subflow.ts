/**
 * Origin: statelyai/xstate, examples/workflow-async-subflow/main.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports (readline, which the prompt actor reads stdin with, left out with the demo driver); `onboardingWorkflow` exported, and its prompt actor given a stand-in through `provide` that answers 'Ada' at once, the parent invoking the child with it.
 */
import { assign, fromPromise, setup } from 'xstate';

/** The prompt as the example reads it: the corpus gives a stand-in (readline on stdin is the demo's). */
const prompt = (question: string): Promise<string> =>
  Promise.reject(new Error(`prompt(${question}) is given by the corpus`));

export const onboardingWorkflow = setup({
  actors: {
    prompt: fromPromise(async ({ input }: { input: { question: string } }) => {
      const response = await prompt(input.question);
      return {
        response,
      };
    }),
  },
}).createMachine({
  id: 'onboarding',
  initial: 'Welcome',
  context: {
    name: undefined,
  },
  states: {
    Welcome: {
      invoke: {
        src: 'prompt',
        input: {
          question: 'What is your name?',
        },
        onDone: {
          target: 'Personalize',
          actions: assign({
            name: ({ event }) => event.output.response,
          }),
        },
      },
    },
    Personalize: {
      invoke: {
        src: 'prompt',
        input: ({ context }) => ({
          question: `Welcome ${context.name}, press enter to finish the onboarding process`,
        }),
        onDone: 'Completed',
      },
    },
    Completed: {
      type: 'final',
    },
  },
});

/** The corpus's: every prompt is answered 'Ada' at once. */
const onboardingWithStandIns = onboardingWorkflow.provide({
  actors: { prompt: fromPromise(async () => ({ response: 'Ada' })) },
});

export const workflow = setup({
  actors: {
    onboarding: onboardingWithStandIns,
  },
}).createMachine({
  id: 'async-function-invocation',
  initial: 'Onboard',
  states: {
    Onboard: {
      invoke: {
        src: 'onboarding',
        onDone: 'Onboarded',
      },
    },
    Onboarded: {
      type: 'final',
    },
  },
});
