/**
 * Origin: statelyai/xstate, examples/workflow-parallel/main.ts, commit b1811bf77bc2d1a74367328cec7907aa185b70df (xstate 5).
 * Licence: MIT (Copyright (c) 2015 David Khourshid).
 * Adapted: imports only, and the file's demo driver (createActor, start) left out: the corpus paths drive the machine. The two delay actors (setTimeout 1 s and 3 s, each logging) are given stand-ins that resolve at once through `provide`, so a test waits on events, not on the wall clock; the machine as written is `workflow`.
 */
import { fromPromise, setup } from 'xstate';

// https://github.com/serverlessworkflow/specification/tree/main/examples#parallel-execution-example
export const workflow = setup({
  actors: {
    shortDelay: fromPromise(async () => {
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          console.log('Resolved shortDelay');
          resolve();
        }, 1000),
      );
    }),
    longDelay: fromPromise(async () => {
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          console.log('Resolved longDelay');
          resolve();
        }, 3000),
      );
    }),
  },
}).createMachine({
  id: 'parallel-execution',
  initial: 'ParallelExec',
  states: {
    ParallelExec: {
      type: 'parallel',
      states: {
        ShortDelayBranch: {
          initial: 'active',
          states: {
            active: {
              invoke: {
                src: 'shortDelay',
                onDone: 'done',
              },
            },
            done: {
              type: 'final',
            },
          },
        },
        LongDelayBranch: {
          initial: 'active',
          states: {
            active: {
              invoke: {
                src: 'longDelay',
                onDone: 'done',
              },
            },
            done: {
              type: 'final',
            },
          },
        },
      },
      onDone: 'Success',
    },
    Success: {
      type: 'final',
    },
  },
});

/** The corpus's: both delays resolve at once. */
export const parallelExecution = workflow.provide({
  actors: { shortDelay: fromPromise(async () => {}), longDelay: fromPromise(async () => {}) },
});
